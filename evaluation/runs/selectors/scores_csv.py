"""A run's per-dialogue scores as CSV, for download, streamed from the database a dialogue at a time.

A run's scores per dialogue are one JSON object in the run's row (``Run.per_dialogue``); the
database's own JSON functions (PostgreSQL's ``jsonb_each``, SQLite's ``json_each``) hand it out as
one row per dialogue, through a server-side cursor on PostgreSQL, so that a run over tens of
thousands of dialogues is never held whole by the web process. The dialogues come in the order
the database keeps the object's keys (as ``Run.per_dialogue`` reads them).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

import orjson
from django.db import connection

from annotator.exporters.stream import csv_chunks
from evaluation.models import Run

FETCH_ROWS = 2000
# (dialogue, its scores as JSON text) and each metric name once, on the two databases the project runs on
_SQL = {
    "postgresql": (
        "SELECT e.key, e.value::text FROM scoring_run r, jsonb_each(r.per_dialogue) e WHERE r.id = %s",
        "SELECT DISTINCT m FROM scoring_run r, jsonb_each(r.per_dialogue) e, jsonb_object_keys(e.value) m "
        "WHERE r.id = %s AND jsonb_typeof(e.value) = 'object'",
    ),
    "sqlite": (
        "SELECT e.key, e.value FROM scoring_run r, json_each(r.per_dialogue) e WHERE r.id = %s",
        "SELECT DISTINCT m.key FROM scoring_run r, json_each(r.per_dialogue) e, json_each(e.value) m "
        "WHERE r.id = %s AND e.type = 'object'",
    ),
}


def _rows(sql: str, run_id: int) -> Iterator[tuple]:
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, [run_id])
        while batch := cursor.fetchmany(FETCH_ROWS):
            yield from batch


def per_dialogue_scores(run: Run) -> Iterator[tuple[str, dict]]:
    """(dialogue, {metric: value}) of every dialogue the run was scored on, read a batch at a time."""
    for dialogue, text in _rows(_SQL[connection.vendor][0], run.pk):
        yield dialogue, orjson.loads(text)


def per_dialogue_metrics(run: Run) -> list[str]:
    """The metric names any dialogue of the run has, sorted (the CSV's columns after the dialogue)."""
    return sorted({m for (m,) in _rows(_SQL[connection.vendor][1], run.pk)} - {"dialogue", "annotator"})


def per_dialogue_csv_chunks(run: Run) -> Iterator[bytes]:
    """One row per dialogue, one column per metric, as UTF-8 chunks; no cell can start a formula."""
    metrics = per_dialogue_metrics(run)
    rows = ([dialogue, *(values.get(m, "") for m in metrics)] for dialogue, values in per_dialogue_scores(run))
    return csv_chunks(chain([["dialogue", *metrics]], rows))


def per_dialogue_csv(run: Run) -> str:
    """The whole CSV as text (``per_dialogue_csv_chunks`` joined)."""
    return b"".join(per_dialogue_csv_chunks(run)).decode("utf-8")
