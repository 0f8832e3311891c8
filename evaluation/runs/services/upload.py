"""Uploaded runs: kept as a zip of their files, queued, and scored by a worker.

A run never stays "Waiting to be scored": a file that makes a reader fail in any way rejects the
run with the reader's message, and a run whose scoring could not be handed to the workers (the
broker was down) is handed over again by the periodic sweep (``runs_requeue`` from Celery beat)
or when a lead opens the leaderboard; the lead can also ask to score a run again.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, transaction
from django.db.models import Q
from django.utils import timezone

from annotator.importers.limits import archive_limits
from annotator.models import Project
from annotator.services.imports import upload_check_size
from config import enqueue
from evaluation.models import Run, RunStatus
from evaluation.runs.services.compare import comparisons_refresh
from evaluation.runs.services.events import run_outcome_emit
from evaluation.runs.services.scoring import files_zip, run_score, uploads_check, zip_files
from scoring.errors import N_, InputError, crash_text, storable_message
from scoring.files import check_archives

log = logging.getLogger(__name__)


def run_upload(*, project: Project, name: str, files: list[tuple[str, bytes]], options: dict | None = None) -> Run:
    """Keep an uploaded run (as a zip of its files) and queue it for scoring by a worker.

    Refused (``InputError``, nothing kept) when the project's scheme takes no run files; of ``options``, only
    those that apply to its run scheme are kept.
    """
    scheme = uploads_check(project)
    if not name.strip():
        raise InputError("run", N_("needs a name"), field="name")
    if not files:
        raise InputError(name, N_("has no files"), field="files")
    upload_check_size(name=name, size=sum(len(raw) for _f, raw in files))
    check_archives(files, archive_limits())  # a zip bomb is refused now, not by the worker later
    with transaction.atomic():
        run, _ = Run.objects.update_or_create(
            project=project,
            name=name,
            defaults={
                "kind": scheme.key,
                "status": RunStatus.PENDING,
                "error": "",
                "source": files_zip(files),
                "source_name": ", ".join(Path(f).name for f, _r in files)[:500],
                "queued_at": None,
                "options": {k: v for k, v in (options or {}).items() if k in scheme.options},
                "scores": {},
                "per_dialogue": {},
                "scored_at": None,
            },
        )
        transaction.on_commit(lambda: run_enqueue(run_id=run.pk))
    return run


def run_delete(*, project: Project, run_id: int) -> str:
    """Delete one of the project's runs (scored, rejected or waiting) and refresh the comparisons of the
    rest once this commits. Returns the run's name; raises ``Run.DoesNotExist`` for another project's run."""
    with transaction.atomic():
        run = Run.objects.defer("source", "per_dialogue").get(project=project, pk=run_id)
        name = run.name
        run.delete()
        transaction.on_commit(lambda: comparisons_request(project.pk))
    return name


def comparisons_request(project_id: int) -> bool:
    """Ask the heavy queue to refresh the project's run comparisons (significance tests); True if sent."""
    return enqueue.task_send("evaluation.tasks.refresh_run_comparisons", project_id, project_id=project_id)


def run_enqueue(*, run_id: int, force: bool = False, sent_before=None) -> bool:
    """Hand a pending run's scoring to the workers; True if it was sent.

    The run is claimed first: ``queued_at`` is set where it was empty (or older than ``sent_before``;
    always with ``force``), so a sweep and a page visit never send it twice; if the broker cannot be
    reached the claim is undone and the next sweep tries again. Scoring twice would be harmless
    anyway (a scored run is skipped).
    """
    claim = Run.objects.filter(pk=run_id, status=RunStatus.PENDING)
    if not force:
        unsent = Q(queued_at__isnull=True)
        claim = claim.filter(unsent | Q(queued_at__lt=sent_before) if sent_before is not None else unsent)
    if not claim.update(queued_at=timezone.now()):
        return False
    if enqueue.task_send("evaluation.tasks.score_uploaded_run", run_id):
        return True
    Run.objects.filter(pk=run_id).update(queued_at=None)
    return False


def runs_requeue(*, project: Project | None = None) -> int:
    """Send again every pending run (of ``project``, or of all projects) whose scoring never reached
    the workers, or was sent longer than ``RUN_REQUEUE_AFTER_SECONDS`` ago (a message lost with
    the broker's data); how many were sent."""
    stale = timezone.now() - timedelta(seconds=settings.RUN_REQUEUE_AFTER_SECONDS)
    pending = Run.objects.filter(status=RunStatus.PENDING, source__isnull=False)
    if project is not None:
        pending = pending.filter(project=project)
    ids = pending.filter(Q(queued_at__isnull=True) | Q(queued_at__lt=stale)).values_list("pk", flat=True)
    return sum(run_enqueue(run_id=run_id, sent_before=stale) for run_id in list(ids))


def run_rescore(*, project: Project, run_id: int) -> Run:
    """A lead's "Score again": a pending run is sent to the workers again; a rejected one (its files
    are kept) is scored afresh, e.g. after the gold data it was checked against changed."""
    run = Run.objects.defer("source", "per_dialogue").get(project=project, pk=run_id)
    if run.status == RunStatus.FAILED:
        Run.objects.filter(pk=run.pk, status=RunStatus.FAILED, source__isnull=False).update(
            status=RunStatus.PENDING, error="", queued_at=None
        )
    transaction.on_commit(lambda: run_enqueue(run_id=run.pk, force=True))
    return run


def run_score_stored(*, run_id: int) -> Run:
    """Score an uploaded run (the worker's side). Safe to run twice: a scored run is left as it is."""
    run = Run.objects.select_related("project").get(pk=run_id)
    if run.status != RunStatus.PENDING or run.source is None:
        return run
    files = zip_files(bytes(run.source))
    options = run.options or {}
    try:
        scored = run_score(
            project=run.project,
            files=files,
            name=run.name,
            alpha=options.get("alpha", 0.5),
            strict=options.get("strict", False),
            threshold=options.get("threshold", 0.0),
        )
    except InputError as exc:
        return _reject(run, str(exc))
    except (OperationalError, InterfaceError):
        raise  # transient: the task retries
    except Exception as exc:  # a reader crashed on this input: the run is rejected, never left pending
        log.exception("run %s (%s) could not be scored", run.pk, run.name)
        return _reject(run, f"{run.source_name}: the run could not be read ({crash_text(exc)})")
    comparisons_refresh(project=run.project)  # the significance tests, in the same background job as the scoring
    run_outcome_emit(run=scored)
    return scored


def _reject(run: Run, message: str) -> Run:
    """Mark the run rejected with ``message`` (made storable: a dialogue id may hold a NUL); its files stay,
    so that a lead can score it again. Should even that fail, the run is rejected with a plain message."""
    try:
        with transaction.atomic():  # a savepoint: a refused write leaves the connection usable
            Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, error=storable_message(message))
    except (DatabaseError, ValueError):
        log.exception("run %s (%s): its error could not be stored", run.pk, run.name)
        Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, error="The run could not be read.")
    run.refresh_from_db()
    run_outcome_emit(run=run)
    return run
