"""``./scripts/serve.sh``: ``--port N`` is its one option (``--help`` says so); anything else is refused with the usage
and exit status 2. Run as a subprocess, as a person runs it; the serving run uses a copy of the script beside the
repository's code whose ``bootstrap.sh`` is a no-op (the test must not install into the shared .venv) and its own
SQLite file (``tests.live_servers.serve_script_sandbox``)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
import requests

from tests.live_servers import serve_script_sandbox
from tests.waiting import wait_for

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
    from services import free_port  # scripts/services.py

    box = serve_script_sandbox(tmp_path)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DEBUG")}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'serve.sqlite3'}"
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [str(box / "scripts" / "serve.sh"), "--port", str(port)],
            cwd=box, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    answers = []

    def login_page() -> bool:
        assert process.poll() is None, log.read_text()
        try:
            answers.append(requests.get(f"http://127.0.0.1:{port}/accounts/login/", timeout=5))
        except requests.ConnectionError:
            return False
        return True

    try:
        assert wait_for(login_page, timeout=300), f"serve.sh did not answer on its --port:\n{log.read_text()}"
        assert answers[-1].status_code == 200 and 'name="username"' in answers[-1].text
        assert f"Serving on http://127.0.0.1:{port}" in log.read_text()
    finally:
        os.killpg(process.pid, signal.SIGTERM)  # the script's own process group (runserver and its reloader)
        process.wait(timeout=30)
