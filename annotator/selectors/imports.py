"""Reads of a project's imports: the batch list, one import's progress, what removing a batch deletes."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext

from annotator.input_errors import input_error_text
from annotator.models import Assignment, AssignmentStatus, Dialogue, ImportBatch, ImportStatus, Judgement, Project

BATCHES_SHOWN = 50

# The progress of imports that the database cannot show yet: SQLite has one writer at a time, so the counts of an
# import's write pass, inside its transaction, would appear only with its result. The worker publishes them in the
# cache (on the embedded default a folder the web server and the worker share), the pages read them here.
_PROGRESS_KEY = "import-progress-{}"


def import_progress_publish(batch_id: int, values: dict | None) -> None:
    """Publish (``values``: the batch's progress columns) or forget (None) a running import's progress."""
    if values is None:
        cache.delete(_PROGRESS_KEY.format(batch_id))
    else:
        cache.set(_PROGRESS_KEY.format(batch_id), dict(values), 3600)


def _progress_published(batch_id: int) -> dict | None:
    try:
        return cache.get(_PROGRESS_KEY.format(batch_id))
    except Exception:  # an unreachable cache hides the live counts, nothing else
        return None


def import_batches_recent(*, project: Project, limit: int = BATCHES_SHOWN) -> list[ImportBatch]:
    """The project's latest imports, newest first, with who made them (the uploaded bytes deferred)."""
    return list(
        ImportBatch.objects.filter(project=project)
        .defer("source")
        .select_related("created_by", "removed_by")
        .order_by("-created_at", "-pk")[:limit]
    )


def import_batches_of(*, project: Project) -> QuerySet[ImportBatch]:
    """Every import of the project, newest first, for the API's paginated list."""
    return (
        ImportBatch.objects.filter(project=project)
        .defer("source")
        .select_related("created_by", "removed_by")
        .order_by("-created_at", "-pk")
    )


def import_batch_status(*, batch: ImportBatch) -> dict:
    """One import as plain data: what the page polls and the API returns.

    ``progress`` is the share done so far (0 to 1): the check of every dialogue counts for the
    first fifth, the writing for the rest; None while the number of dialogues is unknown.
    """
    if batch.status == ImportStatus.RUNNING and (live := _progress_published(batch.pk)):
        for column, value in live.items():
            setattr(batch, column, value)
    total = batch.dialogues_total
    if batch.status in (ImportStatus.DONE, ImportStatus.REMOVED):
        share = 1.0
    elif total:
        share = 0.2 + 0.8 * batch.dialogues_written / total
    else:
        share = None
    return {
        "id": batch.pk,
        "status": batch.status,
        "status_label": batch.get_status_display(),
        "finished": batch.status not in (ImportStatus.PENDING, ImportStatus.RUNNING),
        "file_names": batch.file_names,
        "requested_format": batch.requested_format,
        "format": batch.format,
        "created_by": batch.created_by.username if batch.created_by_id else None,
        "created_at": batch.created_at,
        "started_at": batch.started_at,
        "finished_at": batch.finished_at,
        "dialogues_read": batch.dialogues_read,
        "dialogues_total": total,
        "dialogues_written": batch.dialogues_written,
        "rows_written": batch.rows_written,
        "progress": share,
        "dialogues": batch.dialogues_written if batch.status != ImportStatus.FAILED else 0,
        "posts": batch.posts,
        "judgements": batch.judgements,
        "gold_counts": batch.gold_counts,
        "annotators_created": batch.annotators_created,
        "error": batch.error,
        "file": batch.error_detail.get("file"),
        "record": batch.error_detail.get("record"),
        "field": batch.error_detail.get("field"),
        "message": import_batch_message(batch=batch),
    }


def import_batch_message(*, batch: ImportBatch) -> str:
    """A sentence for a person about where the import is."""
    names = batch.file_names
    if batch.status == ImportStatus.PENDING:
        return gettext("%(names)s is uploaded and waits for a worker.") % {"names": names}
    if batch.status == ImportStatus.RUNNING:
        if batch.dialogues_total is None:
            return gettext("Checking %(names)s: %(read)s dialogues read.") % {
                "names": names,
                "read": f"{batch.dialogues_read:,}",
            }
        return gettext("Importing %(names)s: %(written)s of %(total)s dialogues written (%(rows)s rows).") % {
            "names": names,
            "written": f"{batch.dialogues_written:,}",
            "total": f"{batch.dialogues_total:,}",
            "rows": f"{batch.rows_written:,}",
        }
    if batch.status == ImportStatus.FAILED:
        return import_batch_error(batch=batch)
    if batch.status == ImportStatus.REMOVED:
        return gettext("Import of %(names)s was removed.") % {"names": names}
    return gettext("Imported %(written)s dialogues (%(judgements)s judgements) from %(names)s.") % {
        "written": f"{batch.dialogues_written:,}",
        "judgements": f"{batch.judgements:,}",
        "names": names,
    }


def import_batch_error(*, batch: ImportBatch) -> str:
    """Why a failed import was refused, in the reader's language (the stored English text for old failures)."""
    if not (batch.error_detail or {}).get("template"):
        return batch.error
    return gettext("Nothing was imported. %(error)s") % {"error": input_error_text(batch.error_detail)}


@dataclass(frozen=True)
class ImportBatchContents:
    """What removing a batch deletes."""

    dialogues: int
    assignments: int  # native (made by the assignment) and imported ones
    submitted_judgements: int  # judgements of submitted assignments, native and imported
    native_submitted_judgements: int  # ... of those, given by annotators on this platform
    draft_judgements: int  # saved answers of items not submitted yet

    @property
    def imported_judgements(self) -> int:
        return self.submitted_judgements - self.native_submitted_judgements


def import_batch_contents(*, batch: ImportBatch) -> ImportBatchContents:
    """Counts of the batch's dialogues, assignments and judgements (three queries)."""
    dialogues = Dialogue.objects.filter(batch=batch).count()
    assignments = Assignment.objects.filter(dialogue__batch=batch).count()
    submitted = Q(assignment__status=AssignmentStatus.SUBMITTED)
    counts = Judgement.objects.filter(assignment__dialogue__batch=batch).aggregate(
        submitted=Count("pk", filter=submitted),
        native=Count("pk", filter=submitted & Q(assignment__imported=False)),
        drafts=Count("pk", filter=~submitted),
    )
    return ImportBatchContents(dialogues, assignments, counts["submitted"], counts["native"], counts["drafts"])
