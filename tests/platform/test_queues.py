"""Queues and lost workers, with real worker processes on Redis and PostgreSQL.

- Work on one queue never waits for another's: a long significance job on the heavy queue does not
  delay a statistics recomputation on the interactive queue.
- A task whose worker is killed mid-task (SIGKILL, no goodbye) is done again by another worker, once:
  tasks are acknowledged after completion (acks_late) and the broker hands an unacknowledged task
  out again after the visibility timeout (shortened here to a few seconds).
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from django.conf import settings

from annotator.services.imports import dialogues_import
from evaluation.models import ProjectStatistics, RunComparison
from evaluation.runs.services.scoring import run_score
from evaluation.tasks import recompute_statistics, refresh_run_comparisons
from tests.conftest import database_url, start_worker, stop_worker
from tests.fixtures.collections import stc3_dialogues, write_json
from tests.reference_scoring import random_stc3_run
from tests.waiting import queued_tasks, wait_for

pytestmark = [
    pytest.mark.worker,
    pytest.mark.postgres(reason="a Celery worker in another process, through Redis, shares the database"),
    pytest.mark.django_db(transaction=True),
]

SLOW_TRIALS = "600000"  # randomised Tukey HSD trials per metric: a significance job of several seconds


@pytest.fixture
def project_with_three_runs(make_project, tmp_path):
    if not settings.CELERY_BROKER_URL:
        pytest.skip("needs Redis: scripts/run_tests.py starts redis-server and sets CELERY_BROKER_URL")
    dialogues = [dict(stc3_dialogues()[0], id=f"q{i}") for i in range(40)]
    project = make_project("stc3", slug="queues")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", dialogues)])
    for seed in range(3):
        run = json.dumps(random_stc3_run(dialogues, seed=seed)).encode()
        run_score(project=project, files=[("run.json", run)], name=f"system-{seed}")
    return project


def test_a_long_heavy_job_does_not_delay_statistics(project_with_three_runs, tmp_path):
    project = project_with_three_runs
    slow = {"COMPARISON_TRIALS": SLOW_TRIALS}
    heavy = start_worker(database_url(), tmp_path / "heavy.log", queue="q-heavy", name="q-heavy", env=slow)
    interactive = start_worker(database_url(), tmp_path / "interactive.log", queue="q-interactive", name="q-inter")
    try:
        # given a long significance job running on the heavy queue
        job = refresh_run_comparisons.apply_async(args=(project.pk,), queue="q-heavy")
        assert wait_for(lambda: "refresh_run_comparisons" in (tmp_path / "heavy.log").read_text(), 30)
        # when statistics are asked for on the interactive queue
        asked = time.monotonic()
        stats = recompute_statistics.apply_async(args=(project.pk,), queue="q-interactive")
        answer = stats.get(timeout=60)
        took = time.monotonic() - asked
        # then they come back while the heavy job is still running
        assert answer["n_judgements"] == ProjectStatistics.objects.get(project=project).n_judgements > 0
        assert not job.ready(), f"the heavy job finished first ({took:.1f} s): make SLOW_TRIALS larger"
        assert job.get(timeout=300) == RunComparison.objects.filter(project=project).count() > 0
    finally:
        stop_worker(heavy)
        stop_worker(interactive)


def test_a_task_of_a_killed_worker_is_done_again_once(project_with_three_runs, tmp_path):
    project = project_with_three_runs
    redelivery = {"CELERY_VISIBILITY_TIMEOUT": "3"}
    slow = {**redelivery, "COMPARISON_TRIALS": SLOW_TRIALS}
    first = start_worker(database_url(), tmp_path / "first.log", queue="q-lost", name="q-first", env=slow)
    # given a worker in the middle of a long task
    job = refresh_run_comparisons.apply_async(args=(project.pk,), queue="q-lost")
    assert wait_for(lambda: "refresh_run_comparisons" in (tmp_path / "first.log").read_text(), 30)
    time.sleep(0.5)
    # when it is killed without a chance to say goodbye, and another worker starts (with the default trials: the
    # task only had to be long where it was killed; done again, it need not take the first worker's minute)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    second = start_worker(
        database_url(), tmp_path / "second.log", queue="q-lost", name="q-second", env=redelivery, busy_at_start=True
    )
    try:
        # then the task is done again by the second worker, and its result arrives once
        stored = job.get(timeout=300)
        assert stored == RunComparison.objects.filter(project=project).count() > 0
        # (the worker logs "succeeded" after it stores the result: the line may come a moment after it)
        assert wait_for(lambda: "succeeded" in (tmp_path / "second.log").read_text(), 30)
        assert (tmp_path / "second.log").read_text().count("refresh_run_comparisons") >= 1
        assert "succeeded" not in (tmp_path / "first.log").read_text()
        # and once the broker holds no message of it (acknowledged), nothing can hand it out a third time
        assert wait_for(
            lambda: queued_tasks(settings.CELERY_BROKER_URL, refresh_run_comparisons.name, "q-lost") == 0, 30
        )
        assert (tmp_path / "second.log").read_text().count("succeeded") == 1
    finally:
        stop_worker(second)
