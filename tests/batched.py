"""Data built for a test whose tasks run in the caller (``eager_tasks``), with the background work a worker would do.

A worker recomputes a project's statistics once per burst of submissions (the debounce: the first save of the
burst sends the recomputation, due a few seconds later, and the others find it pending,
``evaluation.services.schedule.statistics_request``). Run in the caller, the recomputation runs at once on every
save, so a test building 160 judgements recomputed the statistics 160 times. Inside ``tasks_after``, the tasks
sent are kept, then sent in their order once the block is done, when the data is in place: each job sent once,
as a worker takes it after the debounce.
"""

from __future__ import annotations

import contextlib

from config import enqueue


@contextlib.contextmanager
def tasks_after(monkeypatch):
    """Keep the tasks sent in the block and send them (``config.enqueue.publish``, as the test sends its tasks)
    in their order at its end; the jobs they belong to were recorded as sent when they were asked for."""
    publish = enqueue.publish
    kept: list[tuple[str, list, str, float | None]] = []

    def keep(name, args, *, task_id, countdown=None):
        kept.append((name, list(args), task_id, countdown))
        return True

    monkeypatch.setattr("config.enqueue.publish", keep)
    try:
        yield kept
    finally:
        monkeypatch.setattr("config.enqueue.publish", publish)
    for name, args, task_id, countdown in kept:
        publish(name, args, task_id=task_id, countdown=countdown)
