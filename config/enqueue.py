"""The one place that hands messages to the broker: tasks are named, never imported.

Services ask for background work through ``task_send("evaluation.tasks.recompute_statistics", 7)``, which records
the job (``annotator.models.Job``: every piece of background work has one, with its state and deadline) and hands
its message to the broker; only the task modules import the services they wrap, so the import graph runs one way
(tasks -> services -> selectors -> models, pinned by import-linter in pyproject.toml).
The task is looked up in the Celery app's registry, which imports the apps' ``tasks`` modules on first use, so
processes that never send a task never import Celery.

There is one way to run background work: a worker takes the message from the broker (Redis, or on the embedded
default the filesystem broker ``./scripts/serve.sh`` serves with its own worker). Nothing runs in the process that
sends, except under a test that says it wants its tasks run in the caller (``tests/conftest.py``).
"""

from __future__ import annotations

import logging
import re

log = logging.getLogger(__name__)

_TASK_ID = re.compile(r"^job-(\d+)-(\d+)$")


def task_id_of(job_id: int, attempt: int) -> str:
    """The Celery task id of attempt ``attempt`` of job ``job_id``.

    >>> task_id_of(12, 2), job_of_task_id("job-12-2"), job_of_task_id("3c1f0e9a-sent-by-beat")
    ('job-12-2', (12, 2), (None, None))
    """
    return f"job-{job_id}-{attempt}"


def job_of_task_id(task_id: str | None) -> tuple[int | None, int | None]:
    """(job id, attempt) of a task id made by ``task_id_of``; (None, None) for a task sent without a job (beat's)."""
    found = _TASK_ID.match(task_id or "")
    return (int(found.group(1)), int(found.group(2))) if found else (None, None)


def registered(name: str):
    """The task called ``name``; the apps' ``tasks`` modules are imported on the first look-up (Celery's
    autodiscovery, which a worker does at start and a web process only when it first sends a task)."""
    from config.celery import app

    if name not in app.tasks:
        app.loader.import_default_modules()
    return app.tasks[name]


def publish(name: str, args: list, *, task_id: str, countdown: float | None = None) -> bool:
    """Hand the task ``name`` with ``args`` to the broker under ``task_id``; False (and a warning) if it could not.

    A broker that cannot be reached never fails the caller: what asked is committed (a save, an upload), its job
    is recorded as not sent, and beat's sweep sends it once the broker is back (``annotator.services.jobs``).
    """
    task = registered(name)
    try:
        task.apply_async(args=list(args), countdown=countdown or None, task_id=task_id, retry=False)
        return True
    except Exception as exc:  # kombu/redis raise several connection error types; none may fail the caller
        log.warning("could not send %s%s to the workers: %s", name, tuple(args), exc)
        return False


def job_send(
    name: str,
    *args,
    countdown: float | None = None,
    project_id: int | None = None,
    key: str = "",
    requested_by=None,
    fingerprint: str = "",
    send: bool = True,
):
    """Record a job running task ``name`` with ``args`` and hand it to the broker (``send``; else the caller does,
    with ``job_publish``, once the job's row is committed); the job (``sent_at`` empty when the broker could not be
    reached: beat's sweep sends it later). ``key`` names what it computes (default: the task and its arguments)."""
    from datetime import timedelta

    from django.utils import timezone

    from annotator.models import Job

    now = timezone.now()
    job = Job.objects.create(
        task=name,
        args=list(args),
        project_id=project_id,
        key=key or job_key(name, *args),
        queued_at=now,
        due_at=now + timedelta(seconds=countdown or 0),
        requested_by=requested_by,
        fingerprint=fingerprint,
    )
    if send:
        job_publish(job, countdown=countdown)
    return job


def job_key(name: str, *args) -> str:
    """What a job computes, by default: its task and arguments.

    >>> job_key("annotator.tasks.run_import_batch", 12)
    'annotator.tasks.run_import_batch:12'
    """
    return ":".join([name, *map(str, args)])[:300]


def job_publish(job, *, countdown: float | None = None) -> bool:
    """Hand ``job``'s current attempt to the broker and note when (``sent_at``); False if it could not be."""
    from django.utils import timezone

    from annotator.models import Job

    if not publish(job.task, job.args, task_id=task_id_of(job.pk, job.attempt), countdown=countdown):
        return False
    job.sent_at = timezone.now()
    Job.objects.filter(pk=job.pk, attempt=job.attempt, sent_at__isnull=True).update(sent_at=job.sent_at)
    return True


def task_send(name: str, *args, countdown: float | None = None, project_id: int | None = None) -> bool:
    """``job_send``, answering whether the broker took it (False: logged, and sent again by beat's sweep)."""
    return job_send(name, *args, countdown=countdown, project_id=project_id).sent_at is not None
