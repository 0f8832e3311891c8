"""Jobs: the one mechanism every piece of background work goes through (``annotator.models.Job``).

- **Sent** by ``config.enqueue.job_send`` (every ``task_send``): the job is recorded, then its message handed to
  the broker under the task id ``job-<id>-<attempt>``.
- **Claimed** by the worker that takes the message (``job_claim``, a compare-and-set from *queued* to *running*
  on the job's current attempt, with the deadline its task's hard time limit sets): a message delivered twice, or
  one of an attempt the sweep has replaced, does nothing.
- **Ended** by the worker: done (with a result), failed (with the error), or stopped at its soft time limit
  (``JobTask`` in ``config.celery``).
- **Swept** by beat (``jobs_sweep``, every ``JOB_SWEEP_SECONDS``): a job still running past its deadline, or
  whose worker started again (``jobs_lost_with_worker``), has lost its worker; a job the broker never took, or
  took so long ago that its message must be lost, is sent again. A job that lost its worker is sent again up to
  ``JOB_MAX_ATTEMPTS`` in all, then ended; either way the task's ``job_lost`` service is told, so that its
  subject (an import batch, a judge, a delivery) is ready to be run again, or says what happened.

Safe to run twice everywhere: every change of a job is a compare-and-set on its attempt and state.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import orjson
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.module_loading import import_string
from django.utils.translation import gettext_noop

from annotator.models import Job, JobEnd, JobState
from config import enqueue
from scoring.errors import crash_text, storable_message

log = logging.getLogger(__name__)


def job_claim(*, job_id: int, attempt: int, worker: str, seconds: float, retries: int = 0) -> Job | None:
    """Mark attempt ``attempt`` of the job running on ``worker`` until ``seconds`` from now (its hard time limit);
    the job, or None when it is not this attempt's to run (another attempt replaced it, it ended, or the message
    came twice). A retry of the same attempt (``retries`` more than when it was claimed: Celery sends the same
    task id again after a transient error) claims it back from *running*."""
    now = timezone.now()
    mine = Q(state=JobState.QUEUED) | Q(state=JobState.RUNNING, retries__lt=retries)
    claimed = Job.objects.filter(mine, pk=job_id, attempt=attempt).update(
        state=JobState.RUNNING,
        started_at=now,
        deadline_at=now + timedelta(seconds=seconds),
        worker=worker[:200],
        retries=retries,
    )
    return Job.objects.filter(pk=job_id).first() if claimed else None


def job_held(*, job_id: int, attempt: int, worker: str) -> bool:
    """Attempt ``attempt`` of the queued job is held by ``worker`` (its message taken, the task not started yet:
    a countdown, or behind the task it runs); True if recorded."""
    return bool(Job.objects.filter(pk=job_id, attempt=attempt, state=JobState.QUEUED).update(worker=worker[:200]))


def job_progress(*, job_id: int, done: int, total: int | None = None) -> None:
    """How far the running job got (a page shows it)."""
    Job.objects.filter(pk=job_id, state=JobState.RUNNING).update(progress_done=done, progress_total=total)


def job_done(*, job_id: int, attempt: int) -> bool:
    """The job's work is done. False if the attempt was not the job's any more (the sweep replaced it: the new
    attempt's outcome counts). A job that stored a result (``job_result_store``) replaces the older ones of its
    key."""
    values = {"state": JobState.DONE, "finished_at": timezone.now(), "ended_by": JobEnd.NONE, "error": ""}
    ended = Job.objects.filter(pk=job_id, attempt=attempt, state=JobState.RUNNING).update(**values)
    if ended and Job.objects.filter(pk=job_id).filter(Q(result__isnull=False) | ~Q(result_file="")).exists():
        _older_results_drop(job_id)
    return bool(ended)


def job_result_store(*, job_id: int, result=None, file: str = "", name: str = "", fingerprint: str = "") -> None:
    """What the running job computed: a JSON ``result`` and/or a ``file`` under MEDIA_ROOT (downloaded as
    ``name``), with the judgements' ``fingerprint`` it was computed from."""
    Job.objects.filter(pk=job_id, state=JobState.RUNNING).update(
        result=None if result is None else json_plain(result),
        result_file=file,
        result_name=name,
        fingerprint=fingerprint,
    )


def json_plain(value):
    """``value`` as plain JSON: numpy numbers as numbers, NaN and infinities as null, anything else (a lazy
    translation, a date) as its text.

    >>> json_plain({"alpha": float("nan"), 2: [1.5], "labels": frozenset()})
    {'alpha': None, '2': [1.5], 'labels': 'frozenset()'}
    """
    try:
        return orjson.loads(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY))
    except TypeError:
        return orjson.loads(
            orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)
        )


def job_fail(*, job_id: int, attempt: int, error: str, ended_by: str = JobEnd.ERROR) -> bool:
    """The job stopped with ``error`` (an exception's text, or why it was stopped)."""
    return bool(
        Job.objects.filter(pk=job_id, attempt=attempt, state=JobState.RUNNING).update(
            state=JobState.FAILED, finished_at=timezone.now(), ended_by=ended_by, error=storable_message(error)
        )
    )


def job_stopped(*, job_id: int, attempt: int, ended_by: str) -> None:
    """The running attempt was stopped at its time limit (``ended_by`` TIME_LIMIT): ended, its subject told."""
    job = Job.objects.filter(pk=job_id, attempt=attempt, state=JobState.RUNNING).first()
    if job is not None:
        _end(job, ended_by)


def job_error(exc: BaseException) -> str:
    return storable_message(crash_text(exc))


# -- The sweep --------------------------------------------------------------------------------------------


def jobs_sweep(*, now=None) -> dict[str, int]:
    """Beat's sweep over every job kind: ends or sends again the jobs whose worker is gone, sends the jobs the
    broker never took, and deletes finished jobs kept long enough. Counts by what was done."""
    now = now or timezone.now()
    grace = timedelta(seconds=settings.JOB_SWEEP_GRACE_SECONDS)
    counts = {"lost": 0, "unsent": 0, "resent": 0, "deleted": 0}
    for job in Job.objects.filter(state=JobState.RUNNING, deadline_at__lt=now - grace):
        counts["lost"] += _lost(job, JobEnd.WORKER_LOST)
    for job in Job.objects.filter(state=JobState.QUEUED, sent_at__isnull=True, queued_at__lt=now - grace):
        counts["unsent"] += enqueue.job_publish(job, countdown=max(0.0, (job.due_at - now).total_seconds()))
    resend_after = now - timedelta(seconds=settings.JOB_RESEND_AFTER_SECONDS)
    for job in Job.objects.filter(state=JobState.QUEUED, sent_at__lt=resend_after, due_at__lt=resend_after):
        counts["resent"] += _lost(job, JobEnd.WORKER_LOST)
    counts["deleted"] = _finished_drop(now)
    if any(counts.values()):
        log.info("jobs swept: %s", counts)
    return counts


def jobs_lost_with_worker(*, worker: str) -> int:
    """A worker node (``name@host``) has started: every job it was running when it last stopped (a kill, a lost
    machine, ``serve.sh`` stopped) has lost its worker, now rather than at its deadline. How many."""
    if not worker:
        return 0
    return sum(_lost(job, JobEnd.WORKER_LOST) for job in Job.objects.filter(state=JobState.RUNNING, worker=worker))


def jobs_held_sent_again(*, worker: str) -> int:
    """A worker node has (re)connected to its broker: the queued jobs whose messages it held and had not started
    (a countdown, or behind the task it ran; ``job_held``) are gone from it - a kill, or a lost connection, after
    which Celery drops what it held and the broker gives it back only if it can. Each is sent again as the same
    attempt with what remains of its countdown: should the broker give the old message back too, the attempt runs
    once (``job_claim``'s compare-and-set). How many."""
    if not worker:
        return 0
    now = timezone.now()
    sent = 0
    for job in Job.objects.filter(state=JobState.QUEUED, worker=worker):
        if Job.objects.filter(pk=job.pk, attempt=job.attempt, state=JobState.QUEUED, worker=worker).update(worker=""):
            sent += enqueue.job_publish(job, countdown=max(0.0, (job.due_at - now).total_seconds()))
    if sent:
        log.warning("%s jobs %s held when it last lost its broker or stopped: sent again", sent, worker)
    return sent


def _lost(job: Job, ended_by: str) -> bool:
    """Send ``job`` again as a new attempt (its subject told first, so that the new attempt may claim it), or,
    after ``JOB_MAX_ATTEMPTS``, end it. True if this call did either (the compare-and-set on its attempt)."""
    if job.attempt >= settings.JOB_MAX_ATTEMPTS:
        return _end(job, ended_by)
    moved = Job.objects.filter(pk=job.pk, attempt=job.attempt, state=job.state).update(
        state=JobState.QUEUED,
        attempt=job.attempt + 1,
        sent_at=None,
        started_at=None,
        deadline_at=None,
        worker="",
        retries=0,
        due_at=timezone.now(),
    )
    if not moved:
        return False
    job.refresh_from_db()
    log.warning("job %s (%s%s) lost its worker: sent again (attempt %s)", job.pk, job.task, job.args, job.attempt)
    _tell(job, final=False)
    enqueue.job_publish(job)
    return True


def _end(job: Job, ended_by: str) -> bool:
    ended = Job.objects.filter(pk=job.pk, attempt=job.attempt, state=job.state).update(
        state=JobState.FAILED, finished_at=timezone.now(), ended_by=ended_by, error=JOB_END_MESSAGES[ended_by]
    )
    if ended:
        job.refresh_from_db()
        log.warning("job %s (%s%s) ended: %s", job.pk, job.task, job.args, job.error)
        _tell(job, final=True)
    return bool(ended)


def _tell(job: Job, *, final: bool) -> None:
    """The task's ``job_lost`` service, if it has one: ``final`` False, the subject is made ready for the new
    attempt; True, it is ended, saying why (``job.ended_by``)."""
    try:
        hook = getattr(enqueue.registered(job.task), "job_lost", "")
    except KeyError:
        return
    if not hook:
        return
    try:
        with transaction.atomic():
            import_string(hook)(job=job, final=final)
    except Exception:  # one subject's trouble must not stop the sweep of the others
        log.exception("job %s: %s could not be told", job.pk, hook)


# Stored in English (the API's and the log's language, and a subject's error); pages translate them
# (``annotator.templatetags.jobs``: the catalogues hold each).
JOB_END_MESSAGES = {
    JobEnd.TIME_LIMIT: gettext_noop("Stopped: it did not finish within its time limit."),
    JobEnd.WORKER_LOST: gettext_noop(
        "Stopped: its worker was lost (killed or shut down) before it finished, on every attempt."
    ),
    JobEnd.UNREACHABLE: gettext_noop("Not run: the workers could not be reached."),
    JobEnd.ERROR: gettext_noop("Stopped by an error."),
}


def _older_results_drop(job_id: int) -> None:
    """A job that stored a result replaces the earlier results of the same key (their files deleted)."""
    job = Job.objects.get(pk=job_id)
    older = Job.objects.filter(key=job.key, state__in=[JobState.DONE, JobState.FAILED]).exclude(pk=job_id)
    older = older.filter(queued_at__lte=job.queued_at)
    _delete_with_files(older)


def _finished_drop(now) -> int:
    """Finished jobs older than ``JOB_KEEP_DAYS``, except the last result of each key (a page shows it)."""
    cutoff = now - timedelta(days=settings.JOB_KEEP_DAYS)
    old = Job.objects.filter(state__in=[JobState.DONE, JobState.FAILED], finished_at__lt=cutoff)
    kept = old.filter(state=JobState.DONE).filter(Q(result__isnull=False) | ~Q(result_file=""))
    return _delete_with_files(old.exclude(pk__in=kept.values("pk")))


def _delete_with_files(jobs) -> int:
    for name in jobs.exclude(result_file="").values_list("result_file", flat=True):
        (Path(settings.MEDIA_ROOT) / name).unlink(missing_ok=True)
    deleted, _by_model = jobs.delete()
    return deleted


# -- Work a page or an endpoint asks for: the stored result, or a job that computes it ------------------------


@dataclass(frozen=True)
class Asked:
    """What a lead's page or endpoint has to show: ``result``, the last job of the key that finished with a result
    (``fresh`` when computed from the current judgements), ``running``, the job at work on it (queued or running),
    ``failed``, the last attempt when it failed after the result, ``throttled``, when a new job was due but
    the user had started too many, and ``next_at``, when a stale result is computed again (``recompute_at``)."""

    result: Job | None
    running: Job | None
    failed: Job | None
    fresh: bool
    throttled: bool = False
    next_at: datetime | None = None

    @property
    def latest(self) -> Job | None:
        return self.running or self.failed or self.result


def recompute_at(result: Job | None, *, factor: float | None = None, max_wait: float | None = None) -> datetime | None:
    """When a stale stored ``result`` may be computed again: ``factor`` (``JOB_RECOMPUTE_DUTY_FACTOR``) times its
    computation's duration after it ended, at most ``max_wait`` (``JOB_RECOMPUTE_MAX_WAIT_SECONDS``) seconds;
    None when there is no result or no spacing. While annotators keep saving, every result goes stale at once;
    spaced so, recomputing one takes at most a tenth of a worker's time however often its page is asked for (a
    page reloads itself every few seconds while a job is at work).

    >>> from datetime import datetime, UTC
    >>> at = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    >>> done = Job(started_at=at, finished_at=at + timedelta(seconds=3))
    >>> recompute_at(done, factor=10, max_wait=300) == at + timedelta(seconds=33)
    True
    >>> recompute_at(done, factor=10, max_wait=20) == at + timedelta(seconds=23)
    True
    """
    factor = settings.JOB_RECOMPUTE_DUTY_FACTOR if factor is None else factor
    max_wait = settings.JOB_RECOMPUTE_MAX_WAIT_SECONDS if max_wait is None else max_wait
    if result is None or result.started_at is None or result.finished_at is None:
        return None
    wait = min(factor * (result.finished_at - result.started_at).total_seconds(), max_wait)
    return result.finished_at + timedelta(seconds=wait) if wait > 0 else None


def job_result_or_start(
    *,
    task: str,
    args: list,
    project,
    key: str,
    fingerprint: str,
    user=None,
    may_start: Callable[[], bool] = lambda: True,
) -> Asked:
    """The stored result of ``key`` if it was computed from ``fingerprint``; otherwise the job at work on it, or a
    new one sent (when ``may_start()``: the user's rate of starts). Never computes anything itself.

    One job of a key at a time, however many leads ask at once: the project's row is locked while the job is
    looked for and recorded (a moment), so that four pages opened together start one."""
    jobs = Job.objects.filter(key=key).order_by("-queued_at", "-pk")
    result = jobs.filter(state=JobState.DONE).first()
    fresh = result is not None and result.fingerprint == fingerprint
    running = jobs.filter(state__in=[JobState.QUEUED, JobState.RUNNING]).first()
    failed = jobs.filter(state=JobState.FAILED).first()
    if failed is not None and result is not None and failed.queued_at < result.queued_at:
        failed = None
    if fresh or running is not None:
        return Asked(result, running, failed, fresh)
    if failed is not None and failed.fingerprint == fingerprint and failed.ended_by == JobEnd.ERROR:
        return Asked(result, None, failed, fresh)  # it fails on these judgements: asking again would too
    next_at = recompute_at(result)
    if next_at is not None and next_at > timezone.now():
        return Asked(result, None, failed, fresh, next_at=next_at)  # spaced: the stale result is shown meanwhile
    if not may_start():
        return Asked(result, None, failed, fresh, throttled=True)
    created = None
    with transaction.atomic():
        type(project).objects.select_for_update().filter(pk=project.pk).first()
        running = jobs.filter(state__in=[JobState.QUEUED, JobState.RUNNING]).first()
        if running is None:
            running = created = enqueue.job_send(
                task, *args, project_id=project.pk, key=key, requested_by=user, fingerprint=fingerprint, send=False
            )
    if created is not None:
        enqueue.job_publish(created)  # (committed: the worker finds its row)
        created.refresh_from_db()
        if created.state == JobState.DONE:  # done already (a test running its tasks in the caller)
            return Asked(created, None, None, created.fingerprint == fingerprint)
    return Asked(result, running, failed, fresh)
