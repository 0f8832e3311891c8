"""The largest upload the pages take - the STC-3 Chinese training set (3,700 dialogues x 19
annotators) in the lead's upload form - goes through gunicorn with the deployment's configuration
(``config/gunicorn.py``; gunicorn's default 30 s timeout once killed it, when the import ran in the
request) and is imported by a worker as a background job."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
import requests
from services import free_port  # scripts/services.py (tests/conftest.py puts scripts/ on the path)

from annotator.models import Dialogue, ImportBatch, ImportStatus
from annotator.services.projects import membership_add
from tests.conftest import ROOT, database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.shared_data]


@pytest.fixture
def gunicorn(tmp_path):
    port = free_port()
    env = dict(os.environ, DATABASE_URL=database_url(), DJANGO_SETTINGS_MODULE="config.settings.test")
    env.pop("GUNICORN_TIMEOUT", None)  # the configuration's own default
    with open(tmp_path / "gunicorn.log", "w") as log:
        process = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py",
                "--bind", f"127.0.0.1:{port}", "--workers", "1", "config.wsgi:application",
            ],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            requests.get(f"{url}/accounts/login/", timeout=2)
            break
        except requests.ConnectionError:
            if process.poll() is not None:
                raise RuntimeError((tmp_path / "gunicorn.log").read_text()) from None
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(timeout=30)


def csrf(session: requests.Session, url: str) -> str:
    page = session.get(url, timeout=30)
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)


@pytest.mark.worker
@pytest.mark.postgres(reason="gunicorn and a Celery worker (through Redis) in other processes share the database")
def test_the_stc3_chinese_upload_completes_under_gunicorn(
    celery_worker_process, gunicorn, stc3_dir, make_project, make_user
):
    project = make_project("stc3", slug="zh")
    lead = make_user("lead")
    membership_add(project=project, user=lead, role="lead")
    session = requests.Session()
    token = csrf(session, f"{gunicorn}/accounts/login/")
    session.post(
        f"{gunicorn}/accounts/login/",
        data={"username": "lead", "password": "pw-for-tests-1", "csrfmiddlewaretoken": token},
        timeout=30,
    )
    token = csrf(session, f"{gunicorn}/projects/zh/manage/")
    with open(stc3_dir / "train_data_cn.json", "rb") as upload:
        response = session.post(
            f"{gunicorn}/projects/zh/manage/upload/",
            data={"csrfmiddlewaretoken": token, "format": "auto"},
            files={"file": ("train_data_cn.json", upload, "application/json")},
            timeout=900,
            allow_redirects=False,
        )
    assert response.status_code == 302, response.text[:2000]
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        batch = ImportBatch.objects.filter(project=project).first()
        if batch is not None and batch.status in (ImportStatus.DONE, ImportStatus.FAILED):
            break
        time.sleep(0.5)
    assert batch is not None and batch.status == ImportStatus.DONE, batch and batch.error
    assert Dialogue.objects.filter(project=project).count() == 3700
