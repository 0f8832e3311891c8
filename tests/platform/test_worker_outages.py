"""A worker survives its broker's outage: Redis stopped for 20 s under a live worker (prefork, as the compose file
starts it) leaves the worker running, and it consumes again once Redis is back, the job it held (a countdown) too.
(kombu 5.7.0's workers ended with ``Unrecoverable error: AttributeError('NoneType' ... 'hostname')`` after such a
stop when they held a message: ``config.celery.redis_restore_survives_a_lost_connection``.)

The test starts a Redis of its own (stopping the suite's would stop the other tests' worker) and the worker on the
test database; jobs are sent to that Redis as the web process sends them (``config.enqueue``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from annotator.models import Job, JobState
from config.enqueue import job_send, task_id_of
from tests.conftest import ROOT, database_url
from tests.factories import project_with_work
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres(reason="a worker process sharing the database"),
]

OUTAGE_SECONDS = 20


def own_redis():
    """A redis-server of the test's own (``scripts/services.py``), started."""
    from services import Services

    services = Services()
    services.start_redis()
    return services


def _send(redis, project_id: int, countdown: float | None = None) -> Job:
    """A statistics job sent to ``redis`` as the web process sends one (``countdown``: due that many seconds on)."""
    from config.celery import app

    job = job_send("evaluation.tasks.recompute_statistics", project_id, project_id=project_id, send=False)
    with app.connection_for_write(f"redis://127.0.0.1:{redis.redis_port}/0") as connection:
        app.send_task(
            "evaluation.tasks.recompute_statistics",
            args=[project_id],
            task_id=task_id_of(job.pk, job.attempt),
            connection=connection,
            countdown=countdown,
        )
    return job


def _done(job: Job) -> bool:
    return Job.objects.get(pk=job.pk).state == JobState.DONE


def test_a_worker_consumes_again_after_redis_stopped_for_20_seconds(tmp_path):
    project = project_with_work("dch1", slug="outage", annotators=1).project
    redis = own_redis()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "DJANGO_", "DATABASE_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=database_url(),
        CELERY_BROKER_URL=f"redis://127.0.0.1:{redis.redis_port}/0",
        CELERY_RESULT_BACKEND=f"redis://127.0.0.1:{redis.redis_port}/1",
    )
    log = tmp_path / "worker.log"
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "-Q",
        "interactive",
        "-n",
        "outage@%h",
        "--loglevel=INFO",
        "--concurrency=1",
        "--max-memory-per-child=1048576",
    ]  # fmt: skip  (the compose file's worker-interactive)
    with open(log, "w") as out:
        worker = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        # given a live worker that has done a job
        assert wait_for(lambda: "ready." in log.read_text(), timeout=120), log.read_text()[-3000:]
        first = _send(redis, project.pk)
        assert wait_for(lambda: _done(first), timeout=90), log.read_text()[-3000:]
        # and holds a job due in 30 s (a webhook's next attempt, a spaced recomputation): its message taken, not run
        held = _send(redis, project.pk, countdown=OUTAGE_SECONDS + 10)
        assert wait_for(lambda: Job.objects.get(pk=held.pk).worker.startswith("outage@"), 60), log.read_text()[-3000:]
        # when Redis stops for 20 s under it, and comes back (empty: no persistence)
        redis.stop_redis()
        time.sleep(OUTAGE_SECONDS)  # the outage itself: a duration, not a wait for a condition
        redis.start_redis()
        # then the worker is still running (kombu 5.7.0 ended it, giving back what it held: conninfo None) and does
        # a job sent after the outage, and the job it held, sent again when it connected again (Redis lost it)
        after = _send(redis, project.pk)
        assert wait_for(lambda: _done(after), timeout=120), log.read_text()[-3000:]
        assert wait_for(lambda: _done(held), timeout=120), log.read_text()[-3000:]
        assert worker.poll() is None, log.read_text()[-3000:]
        assert "Unrecoverable error" not in log.read_text()
        assert Job.objects.get(pk=held.pk).attempt == 1  # the same attempt, sent again
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
        redis.stop()
