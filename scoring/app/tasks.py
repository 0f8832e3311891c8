"""Celery tasks: thin wrappers around services, safe to run twice, retrying transient errors only."""

from celery import shared_task
from django.db import InterfaceError, OperationalError
from django.db.models import F
from django.utils import timezone

from scoring.app.models import StatisticsJob
from scoring.app.services.compare import comparisons_refresh
from scoring.app.services.run_upload import run_score_stored, runs_requeue
from scoring.app.services.statistics import statistics_recompute

TRANSIENT = (OperationalError, InterfaceError)
RETRY = {"autoretry_for": TRANSIENT, "retry_backoff": 2, "retry_kwargs": {"max_retries": 5}}


@shared_task(bind=True, **RETRY)
def recompute_statistics(self, project_id: int, force: bool = False) -> dict:
    # Requests arriving from now on schedule a new run; this one covers everything committed so far.
    started = timezone.now()
    StatisticsJob.objects.filter(project_id=project_id).update(pending=False, started_at=started)
    stored = statistics_recompute(project_id=project_id, force=force)
    finished = timezone.now()
    StatisticsJob.objects.filter(project_id=project_id).update(
        finished_at=finished,
        last_duration=(finished - started).total_seconds(),
        last_error="",
        recomputations=F("recomputations") + 1,
    )
    return {
        "project_id": project_id,
        "n_judgements": stored.n_judgements,
        "fingerprint": stored.fingerprint,
        "computed_at": stored.computed_at.isoformat(),
    }


@shared_task(bind=True, **RETRY)
def score_uploaded_run(self, run_id: int) -> dict:
    run = run_score_stored(run_id=run_id)
    return {"run_id": run.pk, "status": run.status}


@shared_task(bind=True, **RETRY)
def refresh_run_comparisons(self, project_id: int) -> int:
    from annotator.models import Project

    return comparisons_refresh(project=Project.objects.get(pk=project_id))


@shared_task(bind=True, **RETRY)
def requeue_unqueued_runs(self) -> int:
    """The periodic sweep (Celery beat, ``RUN_SWEEP_SECONDS``): runs whose scoring never reached the workers."""
    return runs_requeue()
