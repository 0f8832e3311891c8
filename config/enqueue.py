"""The one place that sends work to the workers: tasks are named, never imported.

Services ask for background work through ``task_send("scoring.app.tasks.recompute_statistics", 7)``;
only the task modules import the services they wrap, so the import graph runs one way (tasks ->
services -> selectors -> models, pinned by import-linter in pyproject.toml). The task is looked up
in the Celery app's registry, which imports the apps' ``tasks`` modules on first use, so processes
that never send a task never import Celery.

Without a broker (the embedded single-user set-up) Celery runs the task in-process
(``CELERY_TASK_ALWAYS_EAGER``): ``task_send`` then returns once the task has run.
"""

from __future__ import annotations

import logging

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
