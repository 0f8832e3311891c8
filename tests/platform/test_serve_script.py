"""``./scripts/serve.sh``: ``--port N`` is its one option (``--help`` says so); anything else is refused with the usage
and exit status 2. Run as a subprocess, as a person runs it; the serving run uses a copy of the script beside the
repository's code whose ``bootstrap.sh`` is a no-op (the test must not install into the shared .venv) and its own
SQLite file (``tests.live_servers.start_serve_script``)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
import requests

from tests.live_servers import BROKER_ENV, running, start_serve_script

# the embedded default's own live test (its own SQLite file whichever lane runs it): the SQLite lane runs it
pytestmark = pytest.mark.sqlite_only

ROOT = Path(__file__).resolve().parent.parent.parent
SERVE = ROOT / "scripts" / "serve.sh"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(SERVE), *args], capture_output=True, text=True, timeout=60)


def test_help_names_the_port_option():
    done = run("--help")
    assert done.returncode == 0
    assert "--port N" in done.stdout and "Usage: ./scripts/serve.sh [--port N]" in done.stdout


@pytest.mark.parametrize(
    "args", [("--verbose",), ("8001",), ("--port",), ("--port", "eighty"), ("--port", "70000"), ("--port=0",)]
)
def test_any_other_argument_is_refused_with_the_usage(args):
    done = run(*args)
    assert done.returncode == 2, done
    assert "Usage: ./scripts/serve.sh [--port N]" in done.stderr
    assert done.stdout == ""  # nothing was set up or started


def test_port_option_serves_the_demo_on_that_port(tmp_path):
    # start_serve_script runs ./scripts/serve.sh --port N in a sandbox and waits for N to answer
    with running(start_serve_script(tmp_path)) as server:
        answer = requests.get(f"{server.url}/accounts/login/", timeout=30)
        assert answer.status_code == 200 and 'name="username"' in answer.text
        assert f"Serving on {server.url}" in server.log.read_text()


def _token(server) -> str:
    answer = requests.post(
        f"{server.url}/api/auth/token/", json={"username": "lead", "password": "demo-lead-pass"}, timeout=60
    )
    assert answer.status_code == 200, answer.text[:300]
    return answer.json()["token"]


def test_a_change_from_the_command_line_rescores_the_runs_within_a_minute(tmp_path):
    """The README's first command runs a worker beside the server: a change made at the command line (no web
    process involved) leads to the same jobs as one made on the page, the runs scored against the old gold
    scored again. (With tasks in threads of the web server, such a run stayed stale for 20 minutes.)"""
    import json
    import sys
    import time

    from tests.live_servers import ROOT
    from tests.reference_scoring import random_stc3_run
    from tests.waiting import wait_for

    with running(start_serve_script(tmp_path)) as server:
        session = requests.Session()
        session.headers["Authorization"] = f"Token {_token(server)}"
        runs = f"{server.url}/api/projects/demo-stc3/runs/"
        # given a run scored by serve.sh's worker against the demo's gold
        gold = [d for d in json.loads((ROOT / "annotator/fixtures/demo/stc3.json").read_text()) if "annotations" in d]
        body = json.dumps(random_stc3_run(gold)).encode()
        uploaded = session.post(runs, files={"files": ("run.json", body)}, data={"name": "random"}, timeout=60)
        assert uploaded.status_code == 202, uploaded.text[:300]
        url = f"{runs}{uploaded.json()['id']}/"
        assert wait_for(lambda: session.get(url, timeout=30).json()["status"] == "scored", timeout=120)
        scored_at = session.get(url, timeout=30).json()["scored_at"]
        # when the lead excludes an annotator from the command line, on the same database
        env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp_path / 'serve.sqlite3'}")
        env["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
        for name in BROKER_ENV:  # (its broker: the folder beside the database, as serve.sh's)
            env.pop(name, None)
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "manage.py", "lead_exclusions", "add", "demo-stc3", "ann1", "--reason", "a test"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0 and "excluded ann1" in done.stdout, done.stderr[-2000:]
        assert done.stderr == "", done.stderr[-2000:]  # (nothing about the broker on the lead's terminal)

        # then the run is scored again against the new gold within a minute
        def rescored() -> bool:
            run = session.get(url, timeout=30).json()
            return run["status"] == "scored" and not run["stale"] and run["scored_at"] != scored_at

        assert wait_for(rescored, timeout=60), session.get(url, timeout=30).json()
        took = time.monotonic() - started
        print(f"\nserve.sh: a command-line exclusion re-scored the run in {took:.1f} s", flush=True)
        # and when serve.sh alone is told to stop (as by a service manager), its server and worker stop with it
        os.kill(server.process.pid, signal.SIGTERM)
        server.process.wait(timeout=60)
        assert wait_for(lambda: not _group_alive(server.process.pid), timeout=90)
    assert "Warm shutdown" in (tmp_path / "serve.log").read_text()


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True
