"""``./scripts/serve.sh``: ``--port N`` is its one option (``--help`` says so); anything else is refused with the usage
and exit status 2. Run as a subprocess, as a person runs it; the serving run uses a copy of the script beside the
repository's code whose ``bootstrap.sh`` is a no-op (the test must not install into the shared .venv) and its own
SQLite file (``tests.live_servers.start_serve_script``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import requests

from tests.live_servers import running, start_serve_script

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
