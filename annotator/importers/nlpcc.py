"""NLPCC 2019 task 3 sample xlsx: one row per question/reply item with per-question yes counts.

Columns: question, reply, system (机器人), number of annotators (参与总人数), severe-error count
(特殊标注), the nine yes/no questions, "none of the above" (以上均不选). A blank row ends the items;
the summary block after it (system, severe errors, number of test items) is checked against them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

from scoring.errors import N_
from scoring.files import check_archive
from scoring.input import Record

from .base import InputError, ParsedDialogue, ParsedGoldCount, ParsedPost
from .limits import EXTERNAL_ID, archive_limits

QUESTION, REPLY, SYSTEM, N_ANNOTATORS, NONE_OF_ABOVE = "问题", "回答", "机器人", "参与总人数", "以上均不选"
SEVERE_ERROR = "severe_error"
# the nlpcc preset's criteria (annotator/presets/files/nlpcc.yaml) and the xlsx column of each
COUNT_COLUMNS = [
    (SEVERE_ERROR, "特殊标注"),
    ("not_ambiguous", "回复内容不含糊，不存在歧义"),
    ("natural_style", "回复不是明显的书面化表达"),
    ("informative", "回复内容信息量适当"),
    ("emotion", "回复中有主观态度或明显的情绪表达"),
    ("affecting", "回复内容会让人感到开心或难过"),
    ("new_content", "回复中有发散，生成新的内容或实体"),
    ("new_round", "回复内容可以引发新一轮的对话"),
    ("related_entities", "回复中有与上文内容相关或重叠的实体词"),
    ("continues_topic", "回复内容延续了上文所探讨的话题"),
]


def read_nlpcc(path: Path, *, display: str, language: str) -> Iterator[ParsedDialogue]:
    import openpyxl

    check_archive(path, display, archive_limits())  # an xlsx is a zip: no bombs through the workbook either
    try:
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises several unrelated types for a broken file
        raise InputError(display, N_("not a readable xlsx workbook: %(exc)s"), params={"exc": exc}) from None
    try:
        yield from _read_rows(workbook, display, language)
    except InputError:
        raise
    except Exception as exc:  # a damaged sheet fails while rows are read, with openpyxl's or the XML parser's errors
        raise InputError(
            display,
            N_("not a readable xlsx workbook: %(type)s: %(exc)s"),
            params={"type": type(exc).__name__, "exc": exc},
        ) from None
    finally:
        workbook.close()


def _read_rows(workbook, display: str, language: str) -> Iterator[ParsedDialogue]:
    if not workbook.worksheets:
        raise InputError(display, N_("the workbook has no sheet"))
    rows = workbook.worksheets[0].iter_rows(values_only=True)
    header = [str(c).strip() if c is not None else "" for c in next(rows, ())]
    required = [QUESTION, REPLY, SYSTEM, N_ANNOTATORS] + [col for _k, col in COUNT_COLUMNS]
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(
            display,
            N_("has no columns %(columns)s in the first row of its first sheet (the NLPCC 2019 task 3 layout)")
            if len(missing) > 1
            else N_("has no column %(columns)s in the first row of its first sheet (the NLPCC 2019 task 3 layout)"),
            field="header",
            params={"columns": ", ".join(missing)},
        )
    col = {name: header.index(name) for name in header if name}
    severe_total: dict[str, int] = {}
    items_total: dict[str, int] = {}
    for row_number, row in enumerate(rows, start=2):
        if all(c is None or str(c).strip() == "" for c in row):
            _check_summary(rows, display, severe_total, items_total)
            return
        item = parse_nlpcc_row(row, col, row_number=row_number, display=display, language=language)
        system = item.source_meta["system"]
        severe = next(g.count for g in item.gold_counts if g.criterion == SEVERE_ERROR and g.value == "yes")
        severe_total[system] = severe_total.get(system, 0) + severe
        items_total[system] = items_total.get(system, 0) + item.source_meta["annotators"]
        yield item


def parse_nlpcc_row(row: tuple, col: dict[str, int], *, row_number: int, display: str, language: str) -> ParsedDialogue:
    at = Record(display, f"row {row_number}")

    def cell(name: str):
        index = col.get(name)
        return row[index] if index is not None and index < len(row) else None

    def count(name: str, field: str) -> int:
        value = cell(name)
        if not _is_whole(value) or value < 0:
            raise at.error(N_("expected a non-negative whole count, got %(value)s"), field, value=repr(value))
        return int(value)

    question, reply, system = cell(QUESTION), cell(REPLY), cell(SYSTEM)
    for name, value in ((QUESTION, question), (REPLY, reply), (SYSTEM, system)):
        if value is None or str(value).strip() == "":
            raise at.error(N_("is empty"), name)
    at.check_text(str(system), SYSTEM, max_length=EXTERNAL_ID - 5)
    n = count(N_ANNOTATORS, N_ANNOTATORS)
    if n == 0:
        raise at.error(N_("must be at least 1"), N_ANNOTATORS)
    external_id = f"{system}-{row_number:04d}"
    item = ParsedDialogue(
        file=display,
        external_id=external_id,
        language=language,
        posts=[ParsedPost("user", str(question)), ParsedPost("system", str(reply))],
        source_meta={"format": "nlpcc", "system": str(system), "row": row_number, "annotators": n},
    )
    if col.get(NONE_OF_ABOVE) is not None:
        item.source_meta["none_of_the_above"] = count(NONE_OF_ABOVE, NONE_OF_ABOVE)
    for key, column in COUNT_COLUMNS:
        yes = count(column, column)
        if yes > n:
            raise at.at(external_id).error(N_("%(yes)s yes answers but only %(n)s annotators"), column, yes=yes, n=n)
        item.gold_counts.append(ParsedGoldCount(key, 1, "yes", yes, n, column))
        item.gold_counts.append(ParsedGoldCount(key, 1, "no", n - yes, n, column))
    return item


def _check_summary(rows, display: str, severe_total: dict[str, int], items_total: dict[str, int]) -> None:
    """The optional summary block: (system, severe errors, number of judged items) per system."""
    header = next(rows, None)
    if header is None:
        return
    for offset, row in enumerate(rows):
        if not row or row[0] is None:
            continue
        system = str(row[0])
        if system not in severe_total:
            raise InputError(
                display,
                N_("summary names system %(system)s, which has no items"),
                field="summary",
                params={"system": repr(system)},
            )
        where = f"summary row {offset + 1}"
        severe = _summary_count(row, 1, display=display, record=where, field=header_name(header, 1))
        if severe is not None and severe != severe_total[system]:
            raise InputError(
                display,
                N_("summary says %(severe)s severe errors for %(system)s, items add up to %(severe_total)s"),
                field="summary",
                params={"severe": severe, "system": system, "severe_total": severe_total[system]},
            )
        items = _summary_count(row, 2, display=display, record=where, field=header_name(header, 2))
        if items is not None and items != items_total[system]:
            raise InputError(
                display,
                N_("summary says %(items)s judged items for %(system)s, items add up to %(items_total)s"),
                field="summary",
                params={"items": items, "system": system, "items_total": items_total[system]},
            )


def header_name(header: tuple, index: int) -> str:
    name = header[index] if index < len(header) and header[index] is not None else f"column {index + 1}"
    return f"summary.{name}"


def _summary_count(row: tuple, index: int, *, display: str, record: str, field: str) -> int | None:
    """A whole count from the summary block, None for an empty cell; text or fractions are an error."""
    value = row[index] if index < len(row) else None
    if value is None:
        return None
    if not _is_whole(value):
        raise Record(display, record).error(N_("expected a whole count, got %(value)s"), field, value=repr(value))
    return int(value)


def _is_whole(value) -> bool:
    """A number with no fraction (Excel stores counts as floats); text, booleans, NaN and infinity are not."""
    return (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value == int(value)
    )
