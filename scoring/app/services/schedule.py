"""Sending work to the workers without ever failing the request that asked for it.

Submissions call ``statistics_request``: the first request marks the project's job pending (a
compare-and-set update) and enqueues one recomputation a few seconds later; requests arriving
while it is pending add nothing, so a burst of submissions costs one recomputation. The delay
grows with the time the last recomputation took, so that under steady load the workers spend at
most a tenth of their time on it. When the
broker is down the request is logged and dropped: the judgements are saved, the dashboard shows
its numbers as stale, and the next submission or the lead's "Recompute" schedules the work again.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from scoring.app.models import StatisticsJob

log = logging.getLogger(__name__)


def safe_enqueue(task, *args, countdown: float | None = None) -> bool:
    """``task.apply_async(args)``; False (and a warning) when the broker cannot be reached."""
    try:
        task.apply_async(args=args, countdown=countdown, retry=False)
        return True
    except Exception as exc:  # kombu/redis raise several connection error types; none may fail the caller
        log.warning("could not send %s%s to the workers: %s", task.name, args, exc)
        return False


def statistics_request(*, project_id: int) -> bool:
    """Ask for the project's statistics to be recomputed; True if this call scheduled the work."""
    now = timezone.now()
    jobs = StatisticsJob.objects.filter(project_id=project_id)
    if jobs.filter(pending=True).update(requested_at=now):
        return False  # already pending (the usual case in a busy hour): that recomputation covers this request
    if not jobs.filter(pending=False).update(pending=True, requested_at=now):
        _job, created = StatisticsJob.objects.get_or_create(
            project_id=project_id, defaults={"pending": True, "requested_at": now}
        )
        if not created:  # another request created it, or claimed it, first
            return False
    from scoring.app.tasks import recompute_statistics

    if safe_enqueue(recompute_statistics, project_id, countdown=recompute_delay(project_id)):
        return True
    StatisticsJob.objects.filter(project_id=project_id).update(pending=False, last_error="the broker was unreachable")
    return False


def recompute_delay(project_id: int) -> float:
    """Seconds to wait before recomputing: the debounce, stretched so that recomputing takes at most
    1/STATISTICS_DUTY_FACTOR of the time while submissions keep coming (large projects, busy hours)."""
    took = StatisticsJob.objects.filter(project_id=project_id).values_list("last_duration", flat=True).first()
    return max(settings.STATISTICS_DEBOUNCE_SECONDS, settings.STATISTICS_DUTY_FACTOR * (took or 0.0))


def statistics_request_on_commit(*, project_id: int) -> None:
    transaction.on_commit(lambda: statistics_request(project_id=project_id))
