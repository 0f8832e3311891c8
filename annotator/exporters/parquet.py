"""Parquet tables of a project's gold data and raw judgements, written a batch of rows at a time.

Each table is one folder of a dataset (``judgements/``, ``distributions/``, ``stc3/``, ``dbdc/``) that
pandas, pyarrow and Hugging Face ``datasets`` read directly. The rows come from the same readers as the
other exports (a chunk of dialogues at a time), and ``pyarrow.parquet.ParquetWriter`` writes each batch
of ``BATCH_ROWS`` rows as a row group as it is filled, so memory does not grow with the project.

pyarrow is an optional extra (``requirements-parquet.txt``, about 170 MB installed): without it
``parquet_check`` raises ``ParquetUnavailable``, whose message says how to install it.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.utils.translation import gettext

from annotator.models import Project, Unit
from annotator.selectors.population import gold_judgements, population_of

from .common import annotator_names
from .dbdc import dbdc_record_stream
from .distributions import CSV_COLUMNS, _csv_rows, distribution_document
from .pairwise import pairwise_record_stream, preference_pair_stream
from .stc3 import stc3_record_stream

BATCH_ROWS = 20_000  # rows a table holds before they are written as one row group
PARQUET_INSTALL = "pip install -r requirements-parquet.txt"


class ParquetUnavailable(RuntimeError):
    """pyarrow is not installed; the message (translated) says how to install it."""


def parquet_available() -> bool:
    return importlib.util.find_spec("pyarrow") is not None


def parquet_check() -> None:
    """Raise ``ParquetUnavailable`` unless pyarrow can be imported."""
    if not parquet_available():
        raise ParquetUnavailable(
            gettext(
                "Parquet exports need pyarrow, an optional extra of about 170 MB. Install it with "
                "“%(command)s” (in the app's virtual environment) and restart the server."
            )
            % {"command": f".venv/bin/{PARQUET_INSTALL}"}
        )


@dataclass(frozen=True)
class ParquetTable:
    """One table of the dataset: its folder name, what it holds (for the card) and how to write it."""

    name: str
    description: str
    schema: Callable[[Project], object]  # -> pyarrow.Schema
    rows: Callable[[Project, str], Iterator[dict]]  # (project, aggregation) -> rows as dicts


def _judgement_rows(project: Project, aggregation: str) -> Iterator[dict]:
    population = population_of(project)
    names = annotator_names(project)
    rows = (
        gold_judgements(project, population)
        .order_by("pk")
        .values_list(
            "assignment__annotator_id",
            "assignment__dialogue__external_id",
            "unit",
            "criterion__key",
            "value",
            "updated_at",
            "assignment__submitted_at",
            "assignment__imported",
        )
    )
    for annotator_id, item, unit, criterion, value, time, submitted_at, imported in rows.iterator(chunk_size=5000):
        yield {
            "annotator": names.get(annotator_id, (0, str(annotator_id)))[1],
            "item": item,
            "unit": unit,
            "criterion": criterion,
            "value": value,
            "time": time,
            "submitted_at": submitted_at,
            "source": "imported" if imported else "platform",
        }


def _judgement_schema(project: Project):
    import pyarrow as pa

    return pa.schema(
        [
            ("annotator", pa.string()),
            ("item", pa.string()),
            ("unit", pa.int32()),
            ("criterion", pa.string()),
            ("value", pa.string()),
            ("time", pa.timestamp("us", tz="UTC")),
            ("submitted_at", pa.timestamp("us", tz="UTC")),
            ("source", pa.string()),
        ]
    )


def _distribution_rows(project: Project, aggregation: str) -> Iterator[dict]:
    rows = _csv_rows(distribution_document(project, aggregation, lazy=True), aggregation)
    next(rows)  # the header
    for row in rows:
        record = dict(zip(CSV_COLUMNS, row))
        record["probability"] = float(record["probability"])
        record["adjudicated"] = record["adjudicated"] or None
        record["annotators"] = record["annotators"].split(";") if record["annotators"] else []
        yield record


def _distribution_schema(project: Project):
    import pyarrow as pa

    return pa.schema(
        [
            ("criterion", pa.string()),
            ("dialogue", pa.string()),
            ("unit", pa.int32()),
            ("speaker", pa.string()),
            ("n", pa.int32()),
            ("value", pa.string()),
            ("count", pa.int32()),
            ("probability", pa.float64()),
            ("adjudicated", pa.string()),
            ("adjudication_note", pa.string()),
            ("aggregation", pa.string()),
            ("annotators", pa.list_(pa.string())),
        ]
    )


def _stc3_quality_keys(project: Project) -> list[str]:
    return [c.key for c in project.criteria.all() if c.unit == Unit.DIALOGUE]


def _stc3_schema(project: Project):
    import pyarrow as pa

    quality = pa.struct([(key, pa.int32()) for key in _stc3_quality_keys(project)] or [("none", pa.int32())])
    turn = pa.struct([("sender", pa.string()), ("utterances", pa.list_(pa.string()))])
    annotation = pa.struct([("quality", quality), ("nugget", pa.list_(pa.string()))])
    return pa.schema([("id", pa.string()), ("turns", pa.list_(turn)), ("annotations", pa.list_(annotation))])


def _stc3_rows(project: Project, aggregation: str) -> Iterator[dict]:
    for record in stc3_record_stream(project):
        yield {"id": record["id"], "turns": record["turns"], "annotations": record.get("annotations", [])}


_DBDC_ANNOTATION = ("annotator-id", "breakdown", "comment", "ungrammatical-sentence")


def _dbdc_schema(project: Project):
    import pyarrow as pa

    annotation = pa.struct(
        [
            ("annotator_id", pa.string()),
            ("breakdown", pa.string()),
            ("comment", pa.string()),
            ("ungrammatical_sentence", pa.string()),
        ]
    )
    turn = pa.struct(
        [
            ("turn_index", pa.int32()),
            ("speaker", pa.string()),
            ("utterance", pa.string()),
            ("annotations", pa.list_(annotation)),
            ("source_fields", pa.string()),
        ]
    )
    return pa.schema([("dialogue_id", pa.string()), ("turns", pa.list_(turn)), ("source_fields", pa.string())])


def _dbdc_rows(project: Project, aggregation: str) -> Iterator[dict]:
    """One row per dialogue; fields of the source beyond the columns are kept as JSON text (``source_fields``)."""
    for _name, record in dbdc_record_stream(project):
        turns = []
        for turn in record["turns"]:
            annotations = [
                {k.replace("-", "_"): None if a.get(k) is None else str(a.get(k)) for k in _DBDC_ANNOTATION}
                for a in turn.get("annotations", [])
            ]
            rest = {k: v for k, v in turn.items() if k not in ("turn-index", "speaker", "utterance", "annotations")}
            turns.append(
                {
                    "turn_index": turn.get("turn-index"),
                    "speaker": turn.get("speaker"),
                    "utterance": turn.get("utterance"),
                    "annotations": annotations,
                    "source_fields": json.dumps(rest, ensure_ascii=False),
                }
            )
        rest = {k: v for k, v in record.items() if k not in ("dialogue-id", "turns")}
        yield {
            "dialogue_id": record.get("dialogue-id"),
            "turns": turns,
            "source_fields": json.dumps(rest, ensure_ascii=False),
        }


def _speech():
    import pyarrow as pa

    return pa.list_(pa.struct([("speaker", pa.string()), ("text", pa.string())]))


def _pairwise_schema(project: Project):
    import pyarrow as pa

    candidate = pa.struct([("system", pa.string()), ("text", pa.string())])
    vote = pa.struct(
        [("annotator", pa.string()), ("criterion", pa.string()), ("winner", pa.string()), ("shown_first", pa.string())]
    )
    return pa.schema(
        [
            ("id", pa.string()),
            ("context", _speech()),
            ("candidates", pa.list_(candidate)),
            ("annotations", pa.list_(vote)),
        ]
    )


def _pairwise_rows(project: Project, aggregation: str) -> Iterator[dict]:
    """One row per comparison item: its context, its two candidates and every vote (the criterion always named)."""
    for record in pairwise_record_stream(project):
        yield {
            "id": str(record["id"]),
            "context": record["context"],
            "candidates": record["candidates"],
            "annotations": [
                {
                    "annotator": a["annotator"],
                    "criterion": a.get("criterion", "overall"),
                    "winner": a["winner"],
                    "shown_first": a.get("shown_first"),
                }
                for a in record.get("annotations", [])
            ],
        }


def _preference_schema(project: Project):
    import pyarrow as pa

    text = pa.string()
    return pa.schema(
        [
            ("id", text),
            ("criterion", text),
            ("context", _speech()),
            ("chosen", text),
            ("rejected", text),
            ("chosen_system", text),
            ("rejected_system", text),
            ("votes", text),
        ]
    )


def _preference_rows(project: Project, aggregation: str) -> Iterator[dict]:
    """The preference pairs (``exporters.pairwise``); the votes per outcome as JSON text (their keys are systems)."""
    first = project.criteria.order_by("position").values_list("key", flat=True).first()
    for record in preference_pair_stream(project):
        yield record | {
            "id": str(record["id"]),
            "criterion": record.get("criterion", first),
            "votes": json.dumps(record["votes"], ensure_ascii=False),
        }


JUDGEMENTS = ParquetTable(
    "judgements",
    "One row per judgement that counts for the gold data: annotator, item (the dialogue's id), unit "
    "(0 for the dialogue, else the post or utterance block), criterion, value, time (last changed, UTC), "
    "submitted_at and source (imported from a collection, or given on the platform).",
    _judgement_schema,
    _judgement_rows,
)
DISTRIBUTIONS = ParquetTable(
    "distributions",
    "Gold distributions: one row per criterion, unit and value with the count, the probability (vote share "
    "or a model's posterior, see aggregation), the adjudicated label and the annotators of the unit.",
    _distribution_schema,
    _distribution_rows,
)
STC3 = ParquetTable(
    "stc3",
    "STC-3 / DialEval layout: one row per dialogue with its turns and each annotator's quality scores "
    "and nugget labels (per turn).",
    _stc3_schema,
    _stc3_rows,
)
DBDC = ParquetTable(
    "dbdc",
    "DBDC layout: one row per dialogue with its turns and each annotator's breakdown label per turn; "
    "fields of the source beyond these are kept as JSON text in source_fields.",
    _dbdc_schema,
    _dbdc_rows,
)

PAIRWISE = ParquetTable(
    "pairwise",
    "Comparison items: one row per item with its context (speaker, text), its two candidate responses "
    "(system, text) and every vote (annotator, criterion, winner: a system, tie or both_bad; shown_first).",
    _pairwise_schema,
    _pairwise_rows,
)
PREFERENCE_PAIRS = ParquetTable(
    "preference_pairs",
    "Preference pairs for training: one row per item and criterion whose most-voted outcome is a system, "
    "with the context, the chosen and rejected responses and systems, and the votes per outcome (JSON text).",
    _preference_schema,
    _preference_rows,
)

# export format (``annotator.exporters.EXPORT_FORMATS``) -> the table that holds the same data
TABLE_OF_FORMAT = {
    "stc3": STC3,
    "dbdc": DBDC,
    "distributions-json": DISTRIBUTIONS,
    "distributions-csv": DISTRIBUTIONS,
    "pairwise": PAIRWISE,
    "preference-pairs": PREFERENCE_PAIRS,
}


def parquet_tables(project: Project) -> list[ParquetTable]:
    """The tables of the project's dataset: the raw judgements, then one per fitting gold format (formats that
    share their data, such as the distributions' JSON and CSV, share one table)."""
    from . import export_formats_of

    tables = [JUDGEMENTS]
    for fmt in export_formats_of(project):
        table = TABLE_OF_FORMAT.get(fmt)
        if table is not None and table not in tables:
            tables.append(table)
    return tables


def _batches(rows: Iterable[dict], names: list[str], size: int) -> Iterator[dict[str, list]]:
    """``rows`` as batches of ``size`` rows held as columns (a list per column: no dict kept per row)."""
    columns: dict[str, list] = {name: [] for name in names}
    held = 0
    for row in rows:
        for name in names:
            columns[name].append(row.get(name))
        held += 1
        if held == size:
            yield columns
            columns, held = {name: [] for name in names}, 0
    if held:
        yield columns


def parquet_table_write(
    *, project: Project, table: ParquetTable, path: Path, aggregation: str = "votes", batch_rows: int = BATCH_ROWS
) -> int:
    """Write ``table`` of ``project`` to the Parquet file ``path``, a row group per ``batch_rows`` rows; the
    number of rows written. An empty table is a file with the schema and no row group (pandas and pyarrow
    read it as no rows with its columns, ``datasets`` when streaming; a row group of no rows would make
    ``datasets`` fail with "BatchSize must be greater than 0")."""
    parquet_check()
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = table.schema(project)
    written = 0
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for batch in _batches(table.rows(project, aggregation), schema.names, batch_rows):
            arrow = pa.Table.from_pydict(batch, schema=schema)
            del batch
            writer.write_table(arrow)
            written += arrow.num_rows
    return written
