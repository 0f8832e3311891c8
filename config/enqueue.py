"""The one place that sends work to the workers: tasks are named, never imported.

Services ask for background work through ``task_send("scoring.app.tasks.recompute_statistics", 7)``;
only the task modules import the services they wrap, so the import graph runs one way (tasks ->
services -> selectors -> models, pinned by import-linter in pyproject.toml). The task is looked up
in the Celery app's registry, which imports the apps' ``tasks`` modules on first use, so processes
that never send a task never import Celery.

Without a broker (the embedded single-user set-up) Celery runs the task in-process
(``CELERY_TASK_ALWAYS_EAGER``): ``task_send`` then returns once the task has run. Work that must never hold
the request that asked for it (a webhook's delivery to a slow endpoint) goes through ``task_send_background``,
which in-process runs the task on a thread of its own instead.
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


def task_send(name: str, *args, countdown: float | None = None, raise_in_process: bool = False) -> bool:
    """Send the task registered as ``name`` with ``args``; False (and a warning) if it could not be sent.

    A broker that cannot be reached never fails the caller: saves and uploads are already committed,
    and the work is asked for again later (the next request, the beat sweep). In-process, an error of
    the task itself is logged the same way unless ``raise_in_process`` (imports: a programming error
    must surface like any other).
    """
    task = _registered(name)
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
    """``task_send``, except that in-process the task runs on a daemon thread (after ``countdown`` seconds)
    instead of inside the caller, so that the request that asked never waits for it. The thread closes its
    own database connection when done. Such work is lost if the process stops first (the embedded set-up
    has no queue to keep it); with a broker it waits in the queue like any task."""
    if not tasks_run_in_process():
        return task_send(name, *args, countdown=countdown)
    task = _registered(name)

    def run() -> None:
        from django.db import connection

        try:
            task.apply(args=args)
        except Exception as exc:  # logged like a worker's failure: nobody is waiting for the result
            log.warning("%s%s failed in the background: %s", name, args, exc)
        finally:
            connection.close()

    timer = threading.Timer(max(0.0, countdown or 0.0), run)
    timer.daemon = True
    timer.start()
    return True
