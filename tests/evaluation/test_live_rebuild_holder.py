"""A rebuild of the live figures whose process is gone (the README's server stopped, a worker killed while it
rebuilt) is taken over at once, not after the fifteen minutes its task may take; one whose process still runs,
or runs on another machine (which cannot be asked), is left to it (``config.processes``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from django.utils import timezone

from config.processes import process_gone, process_name
from evaluation.models import LiveState
from evaluation.services.live_rebuild import live_state_rebuild
from tests.conftest import database_url
from tests.factories import breakdown_project, submit_all
from tests.live_servers import ROOT, running, start_runserver
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.both_databases(
        reason=(
            "the rebuild's holder is claimed with a compare-and-set in a transaction: IMMEDIATE on SQLite, row "
            "versions on PostgreSQL"
        )
    ),
]


def _stale_project(tmp_path, slug):
    work = breakdown_project(tmp_path, dialogues=3, annotators=2, k=2, slug=slug)
    for person in work.annotators:
        submit_all(person, work.project, lambda a, key, unit: "O")
    live_state_rebuild(project_id=work.project.pk)
    return work


def _left_rebuilding(project, holder: str) -> None:
    """The state as a process that began a rebuild after an import and then stopped leaves it."""
    now = timezone.now()
    LiveState.objects.filter(project=project).update(
        stale_since=now, stale_because="import", rebuilding_since=now, rebuilding_by=holder
    )


def test_a_rebuild_is_left_to_its_process_while_it_runs_and_taken_over_once_it_is_gone(tmp_path):
    # given a process that names itself as the platform names a rebuild's holder, and still runs
    work = _stale_project(tmp_path, "holder")
    child = subprocess.Popen(
        [sys.executable, "-c", "from config.processes import this_process; print(this_process(), flush=True); input()"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        holder = child.stdout.readline().strip()
        _left_rebuilding(work.project, holder)
        # then another rebuild leaves the work to it
        assert not process_gone(holder)
        assert live_state_rebuild(project_id=work.project.pk) == 0
        assert LiveState.objects.get(project=work.project).stale_since is not None
        # when that process is killed
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        # then the next rebuild takes the work over at once and the figures are current
        assert process_gone(holder)
        assert live_state_rebuild(project_id=work.project.pk) == 1
        state = LiveState.objects.get(project=work.project)
        assert state.stale_since is None and state.rebuilding_since is None and state.rebuilding_by == ""
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)


def test_a_rebuild_of_another_machine_is_left_to_it_until_its_time_limit(tmp_path):
    work = _stale_project(tmp_path, "elsewhere")
    _left_rebuilding(work.project, "another-machine:4242:123456")
    assert live_state_rebuild(project_id=work.project.pk) == 0
    assert LiveState.objects.get(project=work.project).stale_since is not None


def test_the_readme_server_stopped_while_it_rebuilt_leaves_no_stale_figures_behind(tmp_path):
    # given the README's server (runserver, tasks on its own threads), stopped at once while it rebuilt the
    # figures after an import: it leaves the state marked as being rebuilt by itself
    work = _stale_project(tmp_path, "restarted")
    first = start_runserver(database_url(), tmp_path / "first.log", tasks_in_process=True)
    holder = process_name(first.process.pid)
    assert not process_gone(holder)
    first.process.send_signal(signal.SIGKILL)
    first.process.wait(timeout=30)
    _left_rebuilding(work.project, holder)
    # when it is started again and the lead asks for the statistics
    with running(start_runserver(database_url(), tmp_path / "second.log", tasks_in_process=True)) as server:
        session = server.token_session(work.lead)

        def live() -> dict:
            answer = session.get(f"{server.url}/api/projects/{work.project.slug}/stats/", timeout=120)
            assert answer.status_code == 200, answer.text[:500]
            return answer.json()["live"]

        assert live()["stale"] is True
        # then the new server rebuilds them within moments (not after the dead rebuild's fifteen minutes)
        assert wait_for(lambda: not live()["stale"], timeout=60), server.log.read_text()[-3000:]
    state = LiveState.objects.get(project=work.project)
    assert state.rebuilding_by == "" and state.rebuilt_because == "import"
