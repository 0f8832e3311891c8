"""Importing collections into a project: check against the project, then write in bulk, all or nothing."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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

    Two passes over the sources. The first reads every dialogue and checks it against the
    project (``BatchWriter.validate``: the preset's speakers and units, the format, the criteria and
    their scales, ids already in the project) and writes nothing, so that a refused collection never
    holds the write lock. The second writes them in batches of ``batch_size`` dialogues inside one
    transaction, and any error (``InputError``, naming the file, dialogue and field) leaves the
    database as it was. A collection of at most ``KEPT_RECORDS`` posts and labels is kept as the
    first pass read it (parsing it again was a quarter of the import of DBDC3's 60,000 labels); a larger
    one is read again as a stream, so memory stays bounded. The dialogues are recorded as ``batch`` (a
    new ``ImportBatch`` by ``user`` when none is given); ``progress`` is called with an ``ImportProgress``
    as the passes go.
    """
    paths = [Path(p) for p in paths]
    tracker = ProgressTracker(progress)
    checker = BatchWriter(project, format_chosen=fmt != "auto")
    formats: set[str] = set()
    kept: list[tuple[ParsedDialogue, list[int]]] | None = []  # each dialogue and its utterance blocks
    records = 0
    for parsed in read_sources(paths, fmt, language):
        blocks = checker.validate(parsed)
        formats.add(parsed.source_meta.get("format", fmt))
        tracker.update(read=tracker.state.read + 1)
        if kept is not None:
            records += len(parsed.posts) + len(parsed.judgements) + len(parsed.gold_counts)
            kept.append((parsed, blocks))
            if records > KEPT_RECORDS:
                kept = None  # too large to hold: read again below
    if not checker.seen_new:
        raise InputError(", ".join(map(str, paths)), N_("contains no dialogues"))
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
        if kept is not None:  # as checked: written without checking again
            for start in range(0, len(kept), batch_size):
                part = kept[start : start + batch_size]
                writer.write([parsed for parsed, _ in part], [blocks for _, blocks in part])
                tracker.update(written=writer.dialogues, rows=writer.rows)
        else:  # read again, and checked again as it is written (the files may have changed meanwhile)
            pending: list[ParsedDialogue] = []
            for parsed in read_sources(paths, fmt, language):
                pending.append(parsed)
                if len(pending) >= batch_size:
                    writer.write(pending)
                    pending = []
                    tracker.update(written=writer.dialogues, rows=writer.rows)
            if pending:
                writer.write(pending)
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
    tracker.update(written=writer.dialogues, rows=writer.rows, final=True)
    planner_statistics_refresh()
    return report


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
