"""The webhooks a run's scoring sends: ``run.scored`` or ``run.failed``, for an upload scored by a worker and
for every re-scoring after the gold changed (an exclusion, an adjudication, new judgements), which says so
(``rescored``, and the gold's fingerprint the scores are now against)."""

from __future__ import annotations

from annotator.models import WebhookEvent
from annotator.services.webhooks import webhook_emit
from evaluation.models import Run, RunStatus


def run_outcome_emit(*, run: Run, rescored: bool = False) -> None:
    """``run.scored`` (with the overall scores) or ``run.failed`` (with the reason) to the project's webhooks,
    sent once the caller's transaction commits."""
    data = {"run": run.pk, "name": run.name, "status": run.status}
    if run.status == RunStatus.FAILED:
        data["error"] = run.error
    else:
        data["scores"] = run.scores
    if rescored:
        data.update({"rescored": True, "gold_fingerprint": run.gold_fingerprint})
    event = WebhookEvent.RUN_FAILED if run.status == RunStatus.FAILED else WebhookEvent.RUN_SCORED
    webhook_emit(project_id=run.project_id, event=event, data=data)
