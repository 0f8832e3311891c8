"""Celery tasks: thin wrappers around services, safe to run twice, retrying transient errors only.

Each runs as its job's attempt (``config.celery.JobTask``), bounded by its time limits from the settings' one
table (``config.settings.celery.TASKS``); ``job_lost`` names the service that readies or ends the task's subject
when its worker is lost or its time is up (``annotator.services.jobs``).
"""

from celery import shared_task
from django.db import InterfaceError, OperationalError

import config.celery  # noqa: F401  (the project's Celery app: the tasks below bind to it)
from evaluation.runs.services.compare import comparisons_refresh
from evaluation.runs.services.freshness import runs_rescore_stale
from evaluation.runs.services.upload import run_score_stored, runs_requeue
from evaluation.services.jobs import model_estimate_job_run, statistics_job_run
from evaluation.services.lead_jobs import lead_job_run
from evaluation.services.live_rebuild import live_state_rebuild

TRANSIENT = (OperationalError, InterfaceError)
# transient database errors only; the same task id comes back after 2, 4, 8... s and claims its job again
RETRY = {"autoretry_for": TRANSIENT, "retry_backoff": 2, "retry_jitter": False, "retry_kwargs": {"max_retries": 5}}
LOST = "evaluation.services.jobs."  # the services told when a job's worker is lost (evaluation.services.jobs)


@shared_task(bind=True, **RETRY, job_lost=LOST + "statistics_job_lost")
def recompute_statistics(self, project_id: int, force: bool = False) -> dict:
    stored = statistics_job_run(project_id=project_id, force=force)
    return {
        "project_id": project_id,
        "n_judgements": stored.n_judgements,
        "fingerprint": stored.fingerprint,
        "computed_at": stored.computed_at.isoformat(),
    }


@shared_task(bind=True, **RETRY, job_lost=LOST + "live_rebuild_job_lost")
def rebuild_live_statistics(self, project_id: int) -> int:
    """The live statistics rebuilt after a structural change (``live_rebuild``); a run finding them fresh, or
    another run at work, does nothing."""
    return live_state_rebuild(project_id=project_id)


@shared_task(bind=True, **RETRY, job_lost=LOST + "model_estimate_job_lost")
def estimate_model_reliability(self, project_id: int) -> bool:
    return model_estimate_job_run(project_id=project_id)


@shared_task(bind=True, **RETRY, job_lost=LOST + "run_scoring_job_lost")
def score_uploaded_run(self, run_id: int) -> dict:
    run = run_score_stored(run_id=run_id)
    return {"run_id": run.pk, "status": run.status}


@shared_task(bind=True, **RETRY)
def refresh_run_comparisons(self, project_id: int) -> int:
    from annotator.models import Project

    return comparisons_refresh(project=Project.objects.get(pk=project_id))


@shared_task(bind=True, **RETRY)
def rescore_stale_runs(self, project_id: int) -> int:
    """The runs scored against another gold than the current one, scored again (``runs.freshness``)."""
    return runs_rescore_stale(project_id=project_id)


@shared_task(bind=True, **RETRY)
def requeue_unqueued_runs(self) -> int:
    """The periodic sweep (Celery beat, ``RUN_SWEEP_SECONDS``): runs whose scoring never reached the workers."""
    return runs_requeue()


# -- The lead's heavy pages (evaluation.services.lead_jobs): args (project id, parameters), results on the job --


@shared_task(bind=True, **RETRY)
def compute_power(self, project_id: int, params: dict) -> None:
    lead_job_run(kind="power", job_id=self.job_id, project_id=project_id, params=params)


@shared_task(bind=True, **RETRY)
def compute_judge_report(self, project_id: int, params: dict) -> None:
    lead_job_run(kind="judge_report", job_id=self.job_id, project_id=project_id, params=params)


@shared_task(bind=True, **RETRY)
def compute_study_report(self, project_id: int, params: dict) -> None:
    lead_job_run(kind="study_report", job_id=self.job_id, project_id=project_id, params=params)


@shared_task(bind=True, **RETRY)
def export_gold(self, project_id: int, params: dict) -> None:
    lead_job_run(kind="export", job_id=self.job_id, project_id=project_id, params=params)


@shared_task(bind=True, **RETRY)
def export_archive(self, project_id: int, params: dict) -> None:
    lead_job_run(kind="archive", job_id=self.job_id, project_id=project_id, params=params)
