"""Celery tasks of the annotator app: thin wrappers around services, safe to run twice.

Each runs as its job's attempt (``config.celery.JobTask``), bounded by its time limits from the settings' one
table (``config.settings.celery.TASKS``); ``job_lost`` names the service that readies or ends the task's subject
when its worker is lost or its time is up (``annotator.services.jobs``).
"""

from celery import shared_task
from django.db import InterfaceError, OperationalError

import annotator.job_task  # noqa: F401  (the tasks' base, and the worker's start: it hands back its last jobs)
import config.celery  # noqa: F401  (the project's Celery app: the tasks below bind to it)

# transient database errors only; the same task id comes back after 2, 4, 8... s and claims its job again
RETRY = {
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 2,
    "retry_jitter": False,
    "retry_kwargs": {"max_retries": 5},
}


@shared_task(bind=True, **RETRY, job_lost="annotator.services.import_batches.import_batch_job_lost")
def run_import_batch(self, batch_id: int) -> dict:
    """Import an uploaded file (``import_batch_run``); the batch records the progress and the result."""
    from annotator.services.import_batches import import_batch_run

    batch = import_batch_run(batch_id=batch_id)
    return {"batch_id": batch_id, "status": batch.status if batch else None}


@shared_task(bind=True, **RETRY, job_lost="annotator.services.webhooks.delivery_job_lost")
def deliver_webhook(self, delivery_id: int) -> dict:
    """One attempt at a webhook delivery (``delivery_attempt``); the service schedules the next on failure."""
    from annotator.services.webhooks import delivery_attempt

    delivery = delivery_attempt(delivery_id=delivery_id)
    return {"delivery_id": delivery_id, "status": delivery.status if delivery else None}


@shared_task(bind=True, **RETRY, job_lost="annotator.judges.services.endpoint.endpoint_judge_job_lost")
def run_endpoint_judge(self, judge_id: int) -> dict:
    """Run an endpoint judge (``endpoint_judge_run``): ask the endpoint about every unit (heavy queue)."""
    from annotator.judges.services.endpoint import endpoint_judge_run

    judge = endpoint_judge_run(judge_id=judge_id)
    return {"judge_id": judge_id, "status": judge.status if judge else None}


@shared_task(bind=True, **RETRY)
def sweep_jobs(self) -> dict:
    """Beat's sweep (``JOB_SWEEP_SECONDS``) over the jobs of every kind (``jobs_sweep``)."""
    from annotator.services.jobs import jobs_sweep

    return jobs_sweep()
