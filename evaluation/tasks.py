"""Celery tasks: thin wrappers around services, safe to run twice, retrying transient errors only."""

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

import config.celery  # noqa: F401  (the project's Celery app: the tasks below bind to it)
from evaluation.services.compare import comparisons_refresh
from evaluation.services.jobs import model_estimate_job_run, statistics_job_run
from evaluation.services.live_rebuild import live_state_rebuild
from evaluation.services.runs.freshness import runs_rescore_stale
from evaluation.services.runs.upload import run_score_stored, runs_requeue

TRANSIENT = (OperationalError, InterfaceError)
RETRY = {"autoretry_for": TRANSIENT, "retry_backoff": 2, "retry_kwargs": {"max_retries": 5}}


def limits(queue: str) -> dict:
    """The time limits of a task on ``queue`` (settings.TASK_TIME_LIMITS): hard, and soft a minute earlier."""
    hard = settings.TASK_TIME_LIMITS[queue]
    return {"time_limit": hard, "soft_time_limit": max(1, hard - 60)}


@shared_task(bind=True, **RETRY, **limits("interactive"))
def recompute_statistics(self, project_id: int, force: bool = False) -> dict:
    stored = statistics_job_run(project_id=project_id, force=force)
    return {
        "project_id": project_id,
        "n_judgements": stored.n_judgements,
        "fingerprint": stored.fingerprint,
        "computed_at": stored.computed_at.isoformat(),
    }


@shared_task(bind=True, **RETRY, **limits("interactive"))
def rebuild_live_statistics(self, project_id: int) -> int:
    """The live statistics rebuilt after a structural change (``live_rebuild``); a run finding them fresh, or
    another run at work, does nothing."""
    return live_state_rebuild(project_id=project_id)


@shared_task(bind=True, **RETRY, **limits("heavy"))
def estimate_model_reliability(self, project_id: int) -> bool:
    return model_estimate_job_run(project_id=project_id)


@shared_task(bind=True, **RETRY, **limits("heavy"))
def score_uploaded_run(self, run_id: int) -> dict:
    run = run_score_stored(run_id=run_id)
    return {"run_id": run.pk, "status": run.status}


@shared_task(bind=True, **RETRY, **limits("heavy"))
def refresh_run_comparisons(self, project_id: int) -> int:
    from annotator.models import Project

    return comparisons_refresh(project=Project.objects.get(pk=project_id))


@shared_task(bind=True, **RETRY, **limits("heavy"))
def rescore_stale_runs(self, project_id: int) -> int:
    """The runs scored against another gold than the current one, scored again (``runs.freshness``)."""
    return runs_rescore_stale(project_id=project_id)


@shared_task(bind=True, **RETRY, **limits("interactive"))
def requeue_unqueued_runs(self) -> int:
    """The periodic sweep (Celery beat, ``RUN_SWEEP_SECONDS``): runs whose scoring never reached the workers."""
    return runs_requeue()
