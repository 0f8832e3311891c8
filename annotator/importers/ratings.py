"""Existing ratings in long form, one JSON object per line (the judgements table of the Parquet export, as JSON):

``{"item": ID, "unit": N, "annotator": ID, "criterion": KEY, "value": V}``

``item`` is the dialogue's id in the project, ``unit`` 0 for a dialogue-level criterion and otherwise the
unit's place as the exports number it (a post's position, a turn's index, from 0), ``annotator`` the
rater's id in the source (kept as the imported annotator's name), ``value`` one of the criterion's values
or its "not applicable" answer (a number is read as its text: ``5`` is ``"5"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from scoring.errors import N_
from scoring.input import Record, read_json_lines

from .limits import EXTERNAL_ID


@dataclass(frozen=True)
class ParsedRating:
    line: Record
    item: str
    unit: int
    annotator: str
    criterion: str
    value: str


def _code(line: Record, record: dict, key: str, max_length: int) -> str:
    value = line.field(record, key, (str, int))
    text = str(value)
    line.check_text(text, key, max_length=max_length, non_empty=True)
    return text


def read_ratings(lines: Iterable[bytes], display: str) -> Iterator[ParsedRating]:
    """Each line's rating; an error names the file, the line and the field."""
    for line, record in read_json_lines(lines, display):
        if not isinstance(record, dict):
            raise line.error(N_("expected an object, got %(type)s"), None, type=type(record).__name__)
        unknown = sorted(set(record) - {"item", "unit", "annotator", "criterion", "value"})
        if unknown:
            raise line.error(N_("is not a field of a rating (item, unit, annotator, criterion, value)"), unknown[0])
        unit = line.field(record, "unit", int)
        if unit < 0:
            raise line.error(N_("is negative"), "unit")
        value = line.field(record, "value", (str, int, float))
        yield ParsedRating(
            line=line,
            item=_code(line, record, "item", EXTERNAL_ID),
            unit=unit,
            annotator=_code(line, record, "annotator", 100),
            criterion=line.text(record, "criterion", non_empty=True, max_length=40),
            value=line.check_text(str(value), "value", max_length=40, non_empty=True),
        )
