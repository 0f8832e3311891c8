"""Real server processes for tests at the boundary where users meet the app: ``manage.py runserver`` (what
``scripts/serve.sh`` runs) and gunicorn with the deployment's configuration, on a free port, against the
test database; and a ``requests`` session logged in through the login page."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import requests
from services import free_port  # scripts/services.py (tests/conftest.py puts scripts/ on the path)

from tests.conftest import ROOT, database_url
from tests.factories import PASSWORD
from tests.waiting import wait_for


@contextlib.contextmanager
def serving(argv: list[str], log_path: Path, *, settings: str = "config.settings.test", **env) -> Iterator[str]:
    """Run ``argv`` (``{port}`` in it is replaced by a free port) until the login page answers; yields its URL.
    The process is stopped (by its own pid) when the block ends."""
    port = free_port()
    environment = dict(os.environ, DATABASE_URL=database_url(), DJANGO_SETTINGS_MODULE=settings, **env)
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [a.replace("{port}", str(port)) for a in argv],
            cwd=ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        if process.poll() is not None:
            raise RuntimeError(log_path.read_text())
        with contextlib.suppress(requests.ConnectionError):
            return requests.get(f"{url}/accounts/login/", timeout=5).status_code == 200
        return False

    try:
        assert wait_for(answers, timeout=120), f"{argv} never answered: {log_path.read_text()[-3000:]}"
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def runserver(log_path: Path) -> contextlib.AbstractContextManager[str]:
    """``manage.py runserver`` with the settings ``scripts/serve.sh`` uses (``config.settings.local``)."""
    argv = [sys.executable, "manage.py", "runserver", "--noreload", "127.0.0.1:{port}"]
    return serving(argv, log_path, settings="config.settings.local")


def token_session(user) -> requests.Session:
    """A session that calls the API with ``user``'s token (the test database's passwords are hashed with the
    test settings' hasher, which ``config.settings.local`` cannot check)."""
    from rest_framework.authtoken.models import Token

    session = requests.Session()
    session.headers["Authorization"] = f"Token {Token.objects.get_or_create(user=user)[0].key}"
    return session


def csrf(session: requests.Session, url: str) -> str:
    page = session.get(url, timeout=30)
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)


def logged_in(url: str, username: str, password: str = PASSWORD) -> requests.Session:
    """A session logged in as ``username`` through the login page."""
    session = requests.Session()
    token = csrf(session, f"{url}/accounts/login/")
    answer = session.post(
        f"{url}/accounts/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token},
        timeout=30,
        allow_redirects=False,
    )
    assert answer.status_code == 302, answer.text[:2000]
    return session
