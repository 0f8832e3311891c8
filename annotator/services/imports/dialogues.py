"""Importing collections into a project: check against the project, then write in bulk, all or nothing."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from django.db import connection, transaction
from django.utils import timezone

from annotator import events
from annotator.importers import InputError, ParsedDialogue, read_sources
from annotator.models import (
    Assignment,
    Dialogue,
    GoldCount,
    ImportBatch,
    ImportStatus,
    Judgement,
    Membership,
    Post,
    Project,
)
from annotator.services.imports.batch_writer import BatchWriter
from annotator.services.imports.progress import ImportProgress, ProgressTracker
from annotator.services.imports.uploads import upload_check_size
from scoring.errors import N_

KEPT_RECORDS = 250_000  # posts and labels: a collection this small is read once (DBDC3 EN eval: 64,098)


@dataclass(frozen=True)
class ImportReport:
    dialogues: int
    posts: int
    judgements: int
    gold_counts: int
    annotators_created: int
    batch_id: int | None = None


def dialogues_import(
    *,
    project: Project,
    paths: Sequence[Path | str],
    fmt: str = "auto",
    language: str | None = None,
    batch_size: int = 250,
    batch: ImportBatch | None = None,
    user=None,
    progress: Callable[[ImportProgress], None] | None = None,
) -> ImportReport:
    """Import every dialogue in ``paths`` into ``project``, or nothing.

    Every dialogue is checked against the project (``BatchWriter.validate``: the preset's speakers and
    units, the format, the criteria and their scales, ids already in the project, the ids earlier in the
    import) before it is written, in batches of ``batch_size`` dialogues inside one transaction; any error
    (``InputError``, naming the file, dialogue and field) leaves the database as it was.

    A collection of at most ``KEPT_RECORDS`` posts and labels is read once: checked whole, writing nothing
    (a refused collection never holds the write lock), then written as read. A larger one is not held
    (memory stays flat): on PostgreSQL the rest of it is checked as it is written (an uncommitted import
    blocks no other writer; the progress's ``total`` is known at the end); on other databases (SQLite's one
    writer) it is checked to its end first, then read again and checked again as it is written (the files
    may have changed meanwhile). The dialogues are recorded as ``batch`` (a new ``ImportBatch`` by ``user``
    when none is given); ``progress`` is called with an ``ImportProgress`` as the import goes.
    """
    paths = [Path(p) for p in paths]
    tracker = ProgressTracker(progress)
    checker = BatchWriter(project, format_chosen=fmt != "auto")
    formats: set[str] = set()
    source = read_sources(paths, fmt, language)

    def checked(dialogues: Iterable[ParsedDialogue]) -> Iterator[tuple[ParsedDialogue, list[int]]]:
        """Each dialogue with its utterance blocks, checked against the project and earlier dialogues."""
        for parsed in dialogues:
            blocks = checker.validate(parsed)
            formats.add(parsed.source_meta.get("format", fmt))
            tracker.update(read=tracker.state.read + 1)
            yield parsed, blocks

    kept: list[tuple[ParsedDialogue, list[int]]] = []  # each dialogue and its utterance blocks
    records = 0
    for parsed, blocks in checked(source):
        kept.append((parsed, blocks))
        records += len(parsed.posts) + len(parsed.judgements) + len(parsed.gold_counts)
        if records > KEPT_RECORDS:
            break  # too large to hold: the rest is streamed
    else:
        source = None  # read whole
    streamed = source is not None
    if streamed and connection.vendor != "postgresql":  # checked to the end before the write lock is taken
        for _ in checked(source):
            pass
        kept, source = [], read_sources(paths, fmt, language)
    if not checker.seen_new:
        raise InputError(", ".join(map(str, paths)), N_("contains no dialogues"))
    if not streamed or connection.vendor != "postgresql":
        tracker.update(total=tracker.state.read, final=True)
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()  # one import or removal at a time
        if batch is None:
            batch = ImportBatch.objects.create(
                project=project,
                created_by=user,
                file_names=", ".join(p.name for p in paths)[:500],
                requested_format=fmt,
                language=language or "",
                status=ImportStatus.RUNNING,
                started_at=timezone.now(),
            )
        writer = BatchWriter(project, format_chosen=fmt != "auto", batch=batch)

        def write(part: list[tuple[ParsedDialogue, list[int]]]) -> None:
            writer.write([parsed for parsed, _ in part], [blocks for _, blocks in part])
            tracker.update(written=writer.dialogues, rows=writer.rows)

        for start in range(0, len(kept), batch_size):
            write(kept[start : start + batch_size])
        kept.clear()  # (a stream's first part: its memory goes before the rest is read)
        if source is not None:
            # PostgreSQL: the rest checked as it is written (an uncommitted import blocks no other writer);
            # SQLite: read again and checked again as it is written (the files may have changed meanwhile)
            stream = checked(source) if connection.vendor == "postgresql" else _checked_by(writer, source)
            while part := list(islice(stream, batch_size)):
                write(part)
        report = ImportReport(
            writer.dialogues, writer.posts, writer.judgements, writer.gold_counts, writer.annotators_created, batch.pk
        )
        ImportBatch.objects.filter(pk=batch.pk).update(
            status=ImportStatus.DONE,
            format=", ".join(sorted(formats))[:40],
            dialogues_read=tracker.state.read,
            dialogues_total=tracker.state.read,
            dialogues_written=writer.dialogues,
            rows_written=writer.rows,
            posts=writer.posts,
            judgements=writer.judgements,
            gold_counts=writer.gold_counts,
            annotators_created=writer.annotators_created,
            finished_at=timezone.now(),
        )
        events.population_changed(project_id=project.pk, reason="import")
    tracker.update(total=tracker.state.read, written=writer.dialogues, rows=writer.rows, final=True)
    planner_statistics_refresh()
    return report


def _checked_by(writer: BatchWriter, dialogues: Iterable[ParsedDialogue]) -> Iterator[tuple[ParsedDialogue, list[int]]]:
    for parsed in dialogues:
        yield parsed, writer.validate(parsed)


def planner_statistics_refresh() -> None:
    """ANALYZE the tables an import fills (PostgreSQL; other databases need nothing).

    An import can grow them a hundredfold at once; until autovacuum notices, the planner keeps the
    old row counts and reads them with nested loops (the gold counts of the STC-3 training set:
    1.0 s instead of 0.5 s). Sampling them takes about 0.2 s after the largest import.
    """
    if connection.vendor != "postgresql":
        return
    tables = ", ".join(m._meta.db_table for m in (Dialogue, Post, Assignment, Judgement, GoldCount, Membership))
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {tables}")


def dialogues_import_upload(
    *, project: Project, uploaded, fmt: str = "auto", language: str | None = None
) -> ImportReport:
    """``dialogues_import`` of an uploaded file, at once (control and training items; lead uploads of
    collections go through import batches, ``annotator.services.import_batches``). The file is kept
    under its own name in a temporary folder, and error messages name it, not the temporary path.
    """
    name = re.sub(r"[^\w.+-]", "_", Path(str(uploaded.name)).name)[-100:].lstrip(".") or "upload"
    upload_check_size(name=name, size=uploaded.size)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        with open(path, "wb") as out:
            for chunk in uploaded.chunks():
                out.write(chunk)
        try:
            return dialogues_import(project=project, paths=[path], fmt=fmt, language=language)
        except InputError as exc:
            exc.file = exc.file.replace(f"{tmp}/", "")
            raise
