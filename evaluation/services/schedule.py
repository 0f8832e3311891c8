"""Sending work to the workers without ever failing the request that asked for it.

The design (why it works this way, and what it guarantees) is in ``schedule.md`` beside this module.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from config import enqueue
from evaluation.models import Run, RunKind, RunStatus, StatisticsJob


def statistics_request(*, project_id: int, changed: bool = True) -> bool:
    """Ask for the project's statistics to be recomputed; True if this call scheduled the work.

    ``changed``: the request follows a write that changed what the judgements count (a save, an exclusion, an
    import's removal, ...), recorded as ``StatisticsJob.changed_at``, the version the lead's stored results are
    compared with (``selectors.fingerprint.judgements_version``); False for a lead's explicit request (the
    dashboard's first visit, "Recompute"), which changes nothing the results read."""
    now = timezone.now()
    overdue = now - timedelta(seconds=settings.STATISTICS_TAKEOVER_GRACE_SECONDS)
    if _pending_noted(project_id, now, overdue, changed):
        return False  # already pending (the usual case in a busy hour): that recomputation covers this request
    delay = recompute_delay(project_id)
    also = {"requested_at": now, **({"changed_at": now} if changed else {})}
    if not _claimed(project_id, "pending", "due_at", now + timedelta(seconds=delay), overdue, **also):
        if changed:  # another request created the job, or claimed it, first: the change is noted all the same
            StatisticsJob.objects.filter(project_id=project_id).update(changed_at=now)
        return False
    if enqueue.task_send("evaluation.tasks.recompute_statistics", project_id, countdown=delay, project_id=project_id):
        return True
    StatisticsJob.objects.filter(project_id=project_id).update(pending=False, last_error="the broker was unreachable")
    return False


def _pending_noted(project_id: int, now, overdue, changed: bool) -> bool:
    """Record the request on the project's pending (not overdue) recomputation; False if none is pending.
    Every submission asks this, so it is one plain statement (the ORM's update cost more CPU to compile)."""
    stamp = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {StatisticsJob._meta.db_table} SET requested_at = %s"
            + (", changed_at = %s" if changed else "")
            + " WHERE project_id = %s AND pending AND due_at >= %s",
            [stamp(now), *([stamp(now)] if changed else []), project_id, stamp(overdue)],
        )
        return cursor.rowcount > 0


def _claimed(project_id: int, pending: str, due_at: str, due, overdue, **also) -> bool:
    """Compare-and-set on the project's job: mark work ``pending`` (a field name) due at ``due`` if none is
    pending, or the pending one is overdue (its worker died holding it); False if another request holds it."""
    claimable = Q(**{pending: False}) | Q(**{f"{due_at}__lt": overdue}) | Q(**{f"{due_at}__isnull": True})
    values = {pending: True, due_at: due, **also}
    if StatisticsJob.objects.filter(claimable, project_id=project_id).update(**values):
        return True
    _job, created = StatisticsJob.objects.get_or_create(project_id=project_id, defaults=values)
    return created


def recompute_delay(project_id: int) -> float:
    """Seconds to wait before recomputing: the debounce, stretched so that recomputing takes at most
    1/STATISTICS_DUTY_FACTOR of the time while submissions keep coming (large projects, busy hours)."""
    took = StatisticsJob.objects.filter(project_id=project_id).values_list("last_duration", flat=True).first()
    return max(settings.STATISTICS_DEBOUNCE_SECONDS, settings.STATISTICS_DUTY_FACTOR * (took or 0.0))


def model_estimate_request(*, project_id: int, spaced: bool = True) -> bool:
    """Send the latent-truth models' estimate to the heavy queue; True if this call sent it.

    ``spaced`` (the request a statistics recomputation makes while submissions come in): like the
    statistics, one estimate is queued at a time (a compare-and-set on the job) and it waits
    ``recompute_delay``-style: at least MODEL_ESTIMATE_DELAY_SECONDS (two minutes: a burst of
    submissions costs one estimate), and STATISTICS_DUTY_FACTOR times the last estimate's duration,
    so that the heavy models (and the recomputation that carries them) take at most a tenth of a
    worker's time however busy the project is. Not spaced (the lead's "Estimate
    now"): sent at once. A pending estimate whose worker died is taken over after the grace period.
    """
    now = timezone.now()
    delay = 0.0
    if spaced:
        took = (
            StatisticsJob.objects.filter(project_id=project_id).values_list("models_last_duration", flat=True).first()
        )
        delay = max(settings.MODEL_ESTIMATE_DELAY_SECONDS, settings.STATISTICS_DUTY_FACTOR * (took or 0.0))
        overdue = now - timedelta(seconds=settings.STATISTICS_TAKEOVER_GRACE_SECONDS)
        if not _claimed(project_id, "models_pending", "models_due_at", now + timedelta(seconds=delay), overdue):
            return False  # one is queued already: it will read these judgements too
    if enqueue.task_send(
        "evaluation.tasks.estimate_model_reliability", project_id, countdown=delay or None, project_id=project_id
    ):
        return True
    StatisticsJob.objects.filter(project_id=project_id).update(models_pending=False)
    return False


def runs_rescore_request(*, project_id: int, fingerprint: str) -> bool:
    """Send the re-scoring of the project's runs scored against another gold than ``fingerprint`` (the
    statistics have just read a new one) to the heavy queue; True if sent. Nothing is sent when every run
    is current, or when no stale run can be scored again (its files were not kept)."""
    stale = (
        Run.objects.filter(project_id=project_id, status=RunStatus.SCORED)
        .exclude(gold_fingerprint=fingerprint)
        .filter(Q(source__isnull=False) | Q(kind=RunKind.REORDERING))
    )
    if not stale.exists():
        return False
    return enqueue.task_send("evaluation.tasks.rescore_stale_runs", project_id, project_id=project_id)


def statistics_request_on_commit(*, project_id: int) -> None:
    """``statistics_request`` once the caller's transaction commits.

    On SQLite, inside a transaction (which holds the database's one write lock already), a request that finds
    the recomputation pending is noted at once, in the caller's transaction (``_pending_noted``: committed with
    the change it notes): a submission then writes once, not twice, and takes the write lock and syncs to disk
    once (issue #46). Otherwise (no recomputation pending, or PostgreSQL, where noting it in every save's
    transaction would make concurrent saves queue on the project's job row) the request is made after the commit.
    """
    if connection.vendor == "sqlite" and connection.in_atomic_block:
        now = timezone.now()
        if _pending_noted(project_id, now, now - timedelta(seconds=settings.STATISTICS_TAKEOVER_GRACE_SECONDS), True):
            return
    transaction.on_commit(lambda: statistics_request(project_id=project_id))
