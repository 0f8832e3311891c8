"""Bulk inserts of an import: PostgreSQL's COPY for posts, assignments and judgements (other databases: one
``executemany`` of plain rows per table), with ids reserved ahead (PostgreSQL) or read back (others) so that the
rows can point at each other."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Sequence

from django.db import connection

from annotator.models import Assignment, AssignmentStatus, Judgement, Post

INSERT_CHUNK = 50_000  # rows per executemany (bounds the parameters held at once)
SQLITE_CACHE_KIB = 65_536  # the import's connection: SQLite's 2 MB default made its indexes' pages spill and reload

_COPY_SPECIAL = re.compile(r"[\\\t\n\r]")


def _copy_text(value: str | None) -> str:
    """A text field in PostgreSQL's COPY text format: ``\\N`` for null, backslash escapes where needed."""
    if value is None:
        return "\\N"
    if _COPY_SPECIAL.search(value) is None:
        return value
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _copy_json(value) -> str:
    return "\\N" if value is None else _copy_text(json.dumps(value))


def _copy_int(value: int | None) -> str:
    return "\\N" if value is None else str(int(value))


def copy_rows(model, columns: Sequence[str], lines: Iterable[str]) -> None:
    """Insert ``lines`` (rows of ``columns`` in COPY text format, each ending in a newline) through
    ``COPY ... FROM STDIN`` (PostgreSQL only).

    An import writes millions of rows (50 million fields for ten times STC-3): COPY takes them several
    times faster than the INSERTs the ORM builds from model instances, which other databases get.
    """
    with connection.cursor() as cursor:
        cursor.copy_expert(
            f"COPY {model._meta.db_table} ({', '.join(columns)}) FROM STDIN", io.StringIO("".join(lines))
        )


def insert_rows(model, columns: Sequence[str], rows: Sequence[tuple]) -> None:
    """Insert ``rows`` (tuples of ``columns``' values as the database takes them) with ``executemany``.

    The ORM's ``bulk_create`` builds a model instance per row and prepares every field of it: for the 60,000
    judgements of DBDC3's English evaluation set that is about 90% of an import's time on SQLite, where
    ``executemany`` of plain tuples in the import's transaction takes a fraction of a second.
    """
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(map(quote, columns))}) "
        f"VALUES ({', '.join(['%s'] * len(columns))})"
    )
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}")
        for start in range(0, len(rows), INSERT_CHUNK):
            cursor.executemany(sql, rows[start : start + INSERT_CHUNK])


def model_rows_insert(model, rows: list[dict]) -> None:
    """Insert ``rows`` of ``model``, each a dict of field names (``attname``: ``user_id``) and values as the
    database takes them (no datetimes: they go through the field); the fields a row leaves out take their
    defaults, computed once (a callable default such as ``timezone.now`` gives every row the same value).
    ``insert_rows`` without the model instances ``bulk_create`` builds and prepares field by field."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    defaults = {f.attname: f.get_db_prep_save(f.get_default(), connection) for f in fields}
    names = [f.attname for f in fields]
    insert_rows(model, [f.column for f in fields], [tuple(row.get(n, defaults[n]) for n in names) for row in rows])


def _next_ids(model, n: int) -> list[int]:
    """``n`` ids taken from the table's sequence (PostgreSQL), for rows written by ``copy_rows``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [model._meta.db_table, n]
        )
        return [row[0] for row in cursor.fetchall()]


POST_COLUMNS = (
    "dialogue_id", "position", "speaker", "text", "utterance_block", "source_turn_index", "source_meta",
    "source_annotated",
)  # fmt: skip


def posts_insert(rows: list[tuple[int, int, str, str, int, int | None, dict, bool | None]]) -> None:
    """Insert posts given as rows of ``POST_COLUMNS``' values (``source_meta`` a dict, stored as the ORM stores
    it: JSON, ``null`` included, the column not being nullable)."""
    if connection.vendor != "postgresql":
        insert_rows(Post, POST_COLUMNS, [(*row[:6], json.dumps(row[6]), row[7]) for row in rows])
        return
    flag = {None: "\\N", True: "t", False: "f"}
    copy_rows(
        Post,
        POST_COLUMNS,
        (
            f"{d}\t{i}\t{_copy_text(speaker)}\t{_copy_text(text)}\t{block}\t{_copy_int(turn)}\t"
            f"{_copy_text(json.dumps(meta))}\t{flag[annotated]}\n"
            for d, i, speaker, text, block, turn, meta, annotated in rows
        ),
    )


def assignments_insert(pairs: list[tuple[int, int]], now) -> list[int]:
    """Imported assignments, submitted ``now``, of (annotator id, dialogue id) ``pairs``; returns their ids."""
    if connection.vendor != "postgresql":
        # the dialogues are new (this import's): every assignment of theirs is one of these, found by its pair
        stamp = connection.ops.adapt_datetimefield_value(now)
        insert_rows(
            Assignment,
            ("annotator_id", "dialogue_id", "status", "imported", "submitted_at", "seconds_spent", "queue_rank",
             "version", "reopen_reason"),
            [(annotator_id, dialogue_id, AssignmentStatus.SUBMITTED, True, stamp, 0, 0, 0, "")
             for annotator_id, dialogue_id in pairs],
        )  # fmt: skip
        dialogue_ids = list({dialogue_id for _, dialogue_id in pairs})
        made = {
            (annotator_id, dialogue_id): pk
            for start in range(0, len(dialogue_ids), 500)
            for pk, annotator_id, dialogue_id in Assignment.objects.filter(
                dialogue_id__in=dialogue_ids[start : start + 500]
            ).values_list("pk", "annotator_id", "dialogue_id")
        }
        return [made[pair] for pair in pairs]
    ids = _next_ids(Assignment, len(pairs))
    fixed = f"\t{AssignmentStatus.SUBMITTED}\tt\t{now.isoformat()}\t0\t0\t0\t\n"  # seconds, rank, version, reason
    copy_rows(
        Assignment,
        ("id", "annotator_id", "dialogue_id", "status", "imported", "submitted_at", "seconds_spent", "queue_rank",
         "version", "reopen_reason"),
        (f"{pk}\t{annotator_id}\t{dialogue_id}{fixed}" for pk, (annotator_id, dialogue_id) in zip(ids, pairs)),
    )  # fmt: skip
    return ids


def judgements_insert(rows: list[tuple[int, int, int, str, dict | None, str]], now) -> None:
    """Insert (assignment id, criterion id, unit, value, extra, shown first) rows stamped ``now``."""
    if connection.vendor != "postgresql":
        stamp = connection.ops.adapt_datetimefield_value(now)
        insert_rows(
            Judgement,
            ("assignment_id", "criterion_id", "unit", "value", "extra", "updated_at", "shown_first"),
            [(a, c, u, v, None if e is None else json.dumps(e), stamp, f) for a, c, u, v, e, f in rows],
        )
        return
    stamp = now.isoformat()
    copy_rows(
        Judgement,
        ("assignment_id", "criterion_id", "unit", "value", "extra", "updated_at", "shown_first"),
        (f"{a}\t{c}\t{u}\t{_copy_text(v)}\t{_copy_json(e)}\t{stamp}\t{f}\n" for a, c, u, v, e, f in rows),
    )
