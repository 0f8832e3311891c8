"""The one place that sends work to the workers: tasks are named, never imported.

Services ask for background work through ``task_send("evaluation.tasks.recompute_statistics", 7)``;
only the task modules import the services they wrap, so the import graph runs one way (tasks ->
services -> selectors -> models, pinned by import-linter in pyproject.toml). The task is looked up
in the Celery app's registry, which imports the apps' ``tasks`` modules on first use, so processes
that never send a task never import Celery.

Without a broker (the embedded single-user set-up) Celery runs the task in-process
(``CELERY_TASK_ALWAYS_EAGER``): ``task_send`` then returns once the task has run, except for the long
jobs sent with ``background=True`` (imports, scoring a run, the statistics' recomputation, the models'
estimate), which run in a thread of the web process (``TASKS_IN_PROCESS_IN_BACKGROUND``, on unless the test
settings turn it off) so that the request answers at once and the page shows their progress as with a worker.
Work that must never hold the request that asked for it, whatever that setting (a webhook's delivery to a slow
endpoint), goes through ``task_send_background``, which in-process always runs the task on such a thread.
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger(__name__)


def tasks_run_in_process() -> bool:
    """True when no broker is configured and tasks run inside the caller (``CELERY_TASK_ALWAYS_EAGER``)."""
    from config.celery import app

    return bool(app.conf.task_always_eager)


def _registered(name: str):
    """The task called ``name``; the apps' ``tasks`` modules are imported on the first look-up (Celery's
    autodiscovery, which a worker does at start and a web process only when it first sends a task)."""
    from config.celery import app

    if name not in app.tasks:
        app.loader.import_default_modules()
    return app.tasks[name]


def _run_in_thread(task, args: tuple, countdown: float | None = None) -> None:
    """Run ``task`` in-process in a daemon thread of its own (after ``countdown`` seconds), with its own
    database connection, closed after.

    The task's own bookkeeping records its outcome (a batch's error, a run's rejection); anything it lets
    through is logged. A restart of the process while it runs leaves the job to the sweeps that find
    abandoned work (``import_batches_requeue``, ``runs_requeue``); a webhook's delivery still waiting is lost.
    """
    from django.db import connections

    def run() -> None:
        try:
            result = task.apply(args=args)
            if result.failed():
                log.error("in-process task %s%s failed: %s", task.name, args, result.result)
        except Exception:
            log.exception("in-process task %s%s failed", task.name, args)
        finally:
            connections.close_all()

    timer = threading.Timer(max(0.0, countdown or 0.0), run)
    timer.name = f"task {task.name}{args}"
    timer.daemon = True
    timer.start()


def in_background_here() -> bool:
    """True when tasks sent with ``background=True`` run in a thread of this process (no broker)."""
    from django.conf import settings

    return tasks_run_in_process() and getattr(settings, "TASKS_IN_PROCESS_IN_BACKGROUND", True)


def task_send(
    name: str, *args, countdown: float | None = None, raise_in_process: bool = False, background: bool = False
) -> bool:
    """Send the task registered as ``name`` with ``args``; False (and a warning) if it could not be sent.

    ``background``: without a broker, run it in a thread of this process rather than inside the caller
    (``in_background_here``); the caller has committed what the task reads.

    A broker that cannot be reached never fails the caller: saves and uploads are already committed,
    and the work is asked for again later (the next request, the beat sweep). In-process, an error of
    the task itself is logged the same way unless ``raise_in_process`` (imports: a programming error
    must surface like any other).
    """
    task = _registered(name)
    if background and in_background_here():
        _run_in_thread(task, args, countdown)
        return True
    if raise_in_process and tasks_run_in_process():
        task.apply_async(args=args, countdown=countdown)
        return True
    try:
        task.apply_async(args=args, countdown=countdown, retry=False)
        return True
    except Exception as exc:  # kombu/redis raise several connection error types; none may fail the caller
        log.warning("could not send %s%s to the workers: %s", name, args, exc)
        return False


def task_send_background(name: str, *args, countdown: float | None = None) -> bool:
    """``task_send``, except that in-process the task always runs on a thread of its own (after ``countdown``
    seconds), whatever ``TASKS_IN_PROCESS_IN_BACKGROUND`` says, so that the request that asked never waits
    for it (a webhook's delivery). Such work is lost if the process stops first (the embedded set-up has no
    queue to keep it); with a broker it waits in the queue like any task."""
    if not tasks_run_in_process():
        return task_send(name, *args, countdown=countdown)
    _run_in_thread(_registered(name), args, countdown)
    return True
