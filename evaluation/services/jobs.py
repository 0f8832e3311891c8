"""The workers' side of the scheduled jobs: each runner does the work and keeps its job's bookkeeping, and what
each job's subject does when the job lost its worker or its time (``*_job_lost``, named by the tasks).

The tasks (``evaluation.tasks``) call these; the requests that queue them, and decide when, are in
``schedule``. Both are safe to run twice: an unchanged judgements' fingerprint makes the second run a
no-op.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
from django.db.models import F
from django.utils import timezone

from annotator.models import Job, WebhookEvent
from annotator.services.webhooks import webhook_emit
from evaluation.models import ProjectStatistics, Run, RunStatus, StatisticsJob
from evaluation.services.live_rebuild import live_state_release, live_state_verify
from evaluation.services.model_reliability import model_reliability_recompute
from evaluation.services.statistics import statistics_recompute
from scoring.errors import crash_text, storable_message


def statistics_job_run(*, project_id: int, force: bool = False) -> ProjectStatistics:
    """Recompute the statistics (``statistics_recompute``) with the job's bookkeeping.

    The job stops being pending before the work starts, so that requests arriving meanwhile schedule
    a new run (this one covers everything committed so far); the duration is recorded for
    ``schedule.recompute_delay``, and a failure's message in ``last_error``.
    """
    started = timezone.now()
    StatisticsJob.objects.filter(project_id=project_id).update(pending=False, started_at=started)
    try:
        stored = statistics_recompute(project_id=project_id, force=force)
    except (OperationalError, InterfaceError):
        raise  # transient: the task retries
    except Exception as exc:  # recorded (storable whatever it says), then raised for the worker's log
        error = storable_message(f"the statistics could not be computed ({crash_text(exc)})")
        StatisticsJob.objects.filter(project_id=project_id).update(finished_at=timezone.now(), last_error=error)
        raise
    finished = timezone.now()
    StatisticsJob.objects.filter(project_id=project_id).update(
        finished_at=finished,
        last_duration=(finished - started).total_seconds(),
        last_error="",
        recomputations=F("recomputations") + 1,
    )
    live_state_verify(project=stored.project)  # the full recomputation is the reference of the live figures
    if stored.computed_at >= started:  # new figures, not the stored ones found unchanged
        webhook_emit(
            project_id=project_id,
            event=WebhookEvent.STATISTICS_RECOMPUTED,
            data={
                "n_judgements": stored.n_judgements,
                "fingerprint": stored.fingerprint,
                "computed_at": stored.computed_at.isoformat(),
            },
        )
    return stored


def model_estimate_job_run(*, project_id: int) -> bool:
    """Estimate the latent-truth models (``model_reliability_recompute``), then recompute the statistics so
    that their payload carries the estimate; True if the estimate was new.

    The queued estimate stops being pending first (requests from now on queue another); its duration is
    recorded for the spacing of the next one (``schedule.model_estimate_request``).
    """
    started = timezone.now()
    StatisticsJob.objects.filter(project_id=project_id).update(models_pending=False)
    if not model_reliability_recompute(project_id=project_id):
        return False
    statistics_job_run(project_id=project_id)
    took = (timezone.now() - started).total_seconds()
    StatisticsJob.objects.filter(project_id=project_id).update(models_last_duration=took)
    return True


# -- When a job's worker is lost or its time is up (annotator.services.jobs tells the task's ``job_lost``) --------


def statistics_job_lost(*, job: Job, final: bool) -> None:
    """A recomputation sent again needs nothing (it is safe to run twice); one given up leaves the job not
    pending, saying why, so that the next submission or *Recompute now* asks again."""
    if final:
        StatisticsJob.objects.filter(project_id=job.args[0]).update(pending=False, last_error=job.error)


def model_estimate_job_lost(*, job: Job, final: bool) -> None:
    """As the statistics: an estimate given up is no longer queued (the next recomputation asks again)."""
    if final:
        StatisticsJob.objects.filter(project_id=job.args[0]).update(models_pending=False)


def live_rebuild_job_lost(*, job: Job, final: bool) -> None:
    """The rebuild's claim on the live state is let go, so that the attempt sent again (or the next request)
    rebuilds at once rather than after the claim's time limit."""
    live_state_release(project_id=job.args[0])


def run_scoring_job_lost(*, job: Job, final: bool) -> None:
    """A run whose scoring was given up is rejected with the reason (its files stay: *Score again*)."""
    if final:
        Run.objects.filter(pk=job.args[0], status=RunStatus.PENDING).update(status=RunStatus.FAILED, error=job.error)
