"""Celery tasks: thin wrappers around services, safe to run twice, retrying transient errors only."""
from celery import shared_task
from django.db import InterfaceError, OperationalError

from scoring.services.statistics import statistics_recompute

TRANSIENT = (OperationalError, InterfaceError)


@shared_task(bind=True, autoretry_for=TRANSIENT, retry_backoff=2, retry_kwargs={"max_retries": 5})
def recompute_statistics(self, project_id: int, force: bool = False) -> dict:
    stored = statistics_recompute(project_id=project_id, force=force)
    return {"project_id": project_id, "n_judgements": stored.n_judgements, "fingerprint": stored.fingerprint}
