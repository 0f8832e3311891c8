"""Imports as background jobs, and their batches: create (keep the upload, queue it), run (the
worker's side, with progress), remove (a batch's dialogues with their assignments and judgements).

The import itself is ``annotator.services.imports.dialogues_import``; this module gives it a
record (``ImportBatch``) that a page can poll and a lead can undo. Statistics are asked to
recompute after an import and after a removal (``statistics_request_on_commit``).
"""

from __future__ import annotations

import logging
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.db import (
    DEFAULT_DB_ALIAS,
    DatabaseError,
    InterfaceError,
    OperationalError,
    connection,
    connections,
    transaction,
)
from django.utils import timezone
from django.utils.translation import gettext

from annotator import events
from annotator.importers import InputError
from annotator.input_errors import input_error_detail
from annotator.models import Dialogue, ImportBatch, ImportStatus, Project, WebhookEvent
from annotator.selectors.imports import ImportBatchContents, import_batch_contents, import_progress_publish
from annotator.services.imports import ImportProgress, dialogues_import, upload_check_size
from annotator.services.webhooks import webhook_emit
from config import enqueue
from scoring.errors import crash_text, storable_message

log = logging.getLogger(__name__)


class ImportBatchError(ValueError):
    """A batch that cannot be removed (still running, refused, or removed already)."""


def upload_name(name: str) -> str:
    """A file name safe to write in a temporary folder, as close to the uploaded one as possible.

    >>> upload_name("../../etc/passwd"), upload_name("train data (en).json"), upload_name("...")
    ('passwd', 'train_data__en_.json', 'upload')
    """
    return re.sub(r"[^\w.+-]", "_", Path(str(name)).name)[-100:].lstrip(".") or "upload"


def import_batch_create(*, project: Project, user, uploaded, fmt: str = "auto", language: str = "") -> ImportBatch:
    """Keep an uploaded file as a pending import of ``project`` and queue it for a worker.

    The worker is sent the batch's id once this transaction commits.
    """
    upload_check_size(name=upload_name(uploaded.name), size=uploaded.size)
    content = b"".join(uploaded.chunks())
    batch = ImportBatch.objects.create(
        project=project,
        created_by=user,
        file_names=upload_name(uploaded.name),
        requested_format=fmt,
        language=language or "",
        source=content,
    )
    transaction.on_commit(lambda: _enqueue(batch.pk))
    return batch


def _enqueue(batch_id: int) -> None:
    if not enqueue.task_send("annotator.tasks.run_import_batch", batch_id):
        ImportBatch.objects.filter(pk=batch_id, status=ImportStatus.PENDING).update(
            status=ImportStatus.FAILED,
            error="The workers cannot be reached right now; nothing was imported. Upload the file again later.",
            source=None,
            finished_at=timezone.now(),
        )


class _BatchProgress:
    """Publishes an import's progress on its batch while the import's transaction is still open.

    Inside that transaction the counts are written through a second connection (PostgreSQL), so
    that pages polling the batch see them; the import's rows only reference the batch row, and an
    update of its counters does not wait for them. SQLite allows one writer at a time: there the
    counts written inside the transaction appear with the result.
    """

    FIELDS = {
        "read": "dialogues_read",
        "total": "dialogues_total",
        "written": "dialogues_written",
        "rows": "rows_written",
    }

    def __init__(self, batch_id: int):
        self.batch_id = batch_id
        self.side = None

    def __call__(self, progress: ImportProgress) -> None:
        values = {column: getattr(progress, name) for name, column in self.FIELDS.items()}
        if not connection.in_atomic_block:
            ImportBatch.objects.filter(pk=self.batch_id).update(**values)
            return
        if connection.vendor != "postgresql":
            import_progress_publish(self.batch_id, values)  # the pages read it from the cache
            return
        if self.side is None:
            self.side = connections.create_connection(DEFAULT_DB_ALIAS)
        meta = ImportBatch._meta
        assignments = ", ".join(f"{meta.get_field(f).column} = %s" for f in values)
        with self.side.cursor() as cursor:
            cursor.execute(
                f"UPDATE {meta.db_table} SET {assignments} WHERE {meta.pk.column} = %s",
                [*values.values(), self.batch_id],
            )

    def close(self) -> None:
        import_progress_publish(self.batch_id, None)
        if self.side is not None:
            self.side.close()
            self.side = None


def import_batch_job_lost(*, job, final: bool) -> None:
    """The import lost its worker (killed: its transaction was rolled back with its connection) or its time
    (``annotator.services.jobs``): waiting again for the attempt sent again, or refused, saying why."""
    unended = ImportBatch.objects.filter(pk=job.args[0], status__in=[ImportStatus.PENDING, ImportStatus.RUNNING])
    if not final:
        unended.update(status=ImportStatus.PENDING)
        return
    batch = unended.first()
    if batch is not None:
        _batch_fail(batch.pk, f"Nothing was imported. {job.error}")
        ImportBatch.objects.filter(pk=batch.pk).update(source=None)
        batch.refresh_from_db()
        _emit(batch)


def import_batch_run(*, batch_id: int) -> ImportBatch | None:
    """Import a pending batch's file (the worker's side). Safe to run twice: only a pending batch is claimed
    (compare-and-set; one whose worker was lost is made pending again by ``import_batch_job_lost``), and a
    transient database error puts it back to pending for the retry.

    Bad input is recorded on the batch (``status`` failed, ``error`` naming file, dialogue and field)
    with nothing imported; the uploaded bytes are dropped either way.
    """
    claimed = (
        ImportBatch.objects.filter(pk=batch_id)
        .filter(status=ImportStatus.PENDING)
        .update(status=ImportStatus.RUNNING, started_at=timezone.now())
    )
    batch = ImportBatch.objects.select_related("project").filter(pk=batch_id).first()
    if not claimed or batch is None:
        return batch
    progress = _BatchProgress(batch.pk)
    failure: InputError | None = None
    crash: Exception | None = None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / batch.file_names
            path.write_bytes(bytes(batch.source or b""))
            try:
                dialogues_import(
                    project=batch.project,
                    paths=[path],
                    fmt=batch.requested_format,
                    language=batch.language or None,
                    batch=batch,
                    progress=progress,
                )
            except InputError as exc:
                exc.file = exc.file.replace(f"{tmp}/", "")
                failure = exc
    except (OperationalError, InterfaceError):
        ImportBatch.objects.filter(pk=batch_id, status=ImportStatus.RUNNING).update(status=ImportStatus.PENDING)
        raise
    except Exception as exc:  # a reader or a write crashed on this input: refused, never left running
        log.exception("import %s (%s) failed", batch.pk, batch.file_names)
        crash = exc
    finally:
        progress.close()
    if failure is not None:
        _batch_fail(batch_id, f"Nothing was imported. {failure}", input_error_detail(failure))
    elif crash is not None:
        _batch_fail(
            batch_id, f"Nothing was imported. {batch.file_names}: the file could not be read ({crash_text(crash)})"
        )
    else:
        events.statistics_due(project_id=batch.project_id)
    ImportBatch.objects.filter(pk=batch_id).update(source=None)
    batch.refresh_from_db()
    _emit(batch)
    return batch


def _emit(batch: ImportBatch) -> None:
    """``import.finished`` or ``import.failed`` to the project's webhooks."""
    data = {"import": batch.pk, "files": batch.file_names, "status": batch.status}
    if batch.status == ImportStatus.DONE:
        event = WebhookEvent.IMPORT_FINISHED
        data.update(dialogues=batch.dialogues_written, rows=batch.rows_written)
    else:
        event = WebhookEvent.IMPORT_FAILED
        data["error"] = batch.error
    webhook_emit(project_id=batch.project_id, event=event, data=data)


def _batch_fail(batch_id: int, message: str, detail: dict | None = None) -> None:
    """Mark the batch refused with ``message`` (made storable); if even that cannot be stored, with the
    message alone, so that the batch always ends refused."""
    done = {"status": ImportStatus.FAILED, "finished_at": timezone.now()}
    try:
        with transaction.atomic():  # a savepoint: a refused write leaves the connection usable
            ImportBatch.objects.filter(pk=batch_id).update(
                error=storable_message(message), error_detail=detail or {}, **done
            )
    except (DatabaseError, ValueError, TypeError):
        log.exception("import %s: its error could not be stored with its details", batch_id)
        ImportBatch.objects.filter(pk=batch_id).update(error=storable_message(message), error_detail={}, **done)


@dataclass(frozen=True)
class BatchRemoval:
    batch_id: int
    contents: ImportBatchContents
    refused: bool = False  # a refused import, taken off the list (it had written nothing that stays)


@transaction.atomic
def import_batch_remove(*, project: Project, batch_id: int, user) -> BatchRemoval:
    """Delete an imported batch's dialogues with their posts, assignments, judgements (submitted or
    draft), reorderings and gold counts; the batch stays on record as removed, by whom and when.

    Annotator accounts an import created stay members of the project (an import of the same file
    again uses them). A refused import is taken off the list altogether (with whatever it may have
    written before it was refused). Raises ``ImportBatch.DoesNotExist`` for a batch of another project
    and ``ImportBatchError`` for one that is neither imported nor refused (running, or already removed).
    """
    Project.objects.select_for_update().filter(pk=project.pk).first()  # not while an import writes
    batch = ImportBatch.objects.select_for_update().get(pk=batch_id, project=project)
    if batch.status == ImportStatus.FAILED:
        contents = import_batch_contents(batch=batch)
        # the live state's row first, as saves take it first: then never a deadlock with a save on these units
        events.population_changed(project_id=project.pk, reason="import_removed")
        Dialogue.objects.filter(batch=batch).delete()
        batch.delete()
        if contents.dialogues:
            events.statistics_due(project_id=project.pk)
        return BatchRemoval(batch_id, contents, refused=True)
    if batch.status != ImportStatus.DONE:
        raise ImportBatchError(
            gettext("Import %(pk)s (%(names)s) is %(status)s; only an imported or a refused batch can be removed.")
            % {"pk": batch.pk, "names": batch.file_names, "status": str(batch.get_status_display()).lower()}
        )
    contents = import_batch_contents(batch=batch)
    events.population_changed(project_id=project.pk, reason="import_removed")  # (first: as above)
    Dialogue.objects.filter(batch=batch).delete()
    ImportBatch.objects.filter(pk=batch.pk).update(
        status=ImportStatus.REMOVED, removed_at=timezone.now(), removed_by=user
    )
    events.statistics_due(project_id=project.pk)
    return BatchRemoval(batch.pk, contents)
