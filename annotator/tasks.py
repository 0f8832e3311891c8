"""Celery tasks of the annotator app: thin wrappers around services, safe to run twice."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

import config.celery  # noqa: F401  (the project's Celery app: the tasks below bind to it)

RETRY = {"autoretry_for": (OperationalError, InterfaceError), "retry_backoff": 2, "retry_kwargs": {"max_retries": 5}}


@shared_task(bind=True, **RETRY)
def run_import_batch(self, batch_id: int) -> dict:
    """Import an uploaded file (``import_batch_run``); the batch records the progress and the result."""
    from annotator.services.import_batches import import_batch_run

    batch = import_batch_run(batch_id=batch_id)
    return {"batch_id": batch_id, "status": batch.status if batch else None}


@shared_task
def requeue_abandoned_imports() -> int:
    """The periodic sweep (Celery beat, ``RUN_SWEEP_SECONDS``): imports a killed worker left unfinished."""
    from annotator.services.import_batches import import_batches_requeue

    return import_batches_requeue()


@shared_task(bind=True, **RETRY)
def deliver_webhook(self, delivery_id: int) -> dict:
    """One attempt at a webhook delivery (``delivery_attempt``); the service schedules the next on failure."""
    from annotator.services.webhooks import delivery_attempt

    delivery = delivery_attempt(delivery_id=delivery_id)
    return {"delivery_id": delivery_id, "status": delivery.status if delivery else None}


@shared_task(bind=True, **RETRY)
def run_endpoint_judge(self, judge_id: int) -> dict:
    """Run an endpoint judge (``endpoint_judge_run``): ask the endpoint about every unit (heavy queue)."""
    from annotator.services.endpoint_judges import endpoint_judge_run

    judge = endpoint_judge_run(judge_id=judge_id)
    return {"judge_id": judge_id, "status": judge.status if judge else None}
