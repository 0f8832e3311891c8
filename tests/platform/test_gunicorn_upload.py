"""The largest upload the pages take - the STC-3 Chinese training set (3,700 dialogues x 19
annotators) in the lead's upload form - goes through gunicorn with the deployment's configuration
(``config/gunicorn.py``; gunicorn's default 30 s timeout once killed it, when the import ran in the
request) and is imported by a worker as a background job."""

from __future__ import annotations

import time

import pytest

from annotator.models import Dialogue, ImportBatch, ImportStatus
from annotator.services.projects import membership_add
from tests.conftest import database_url
from tests.factories import PASSWORD
from tests.live_servers import running, start_gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.shared_data]


@pytest.fixture
def gunicorn(tmp_path, monkeypatch):
    monkeypatch.delenv("GUNICORN_TIMEOUT", raising=False)  # the configuration's own default
    with running(start_gunicorn(database_url(), tmp_path / "gunicorn.log", production=False)) as server:
        yield server


@pytest.mark.worker
@pytest.mark.postgres(reason="gunicorn and a Celery worker (through Redis) in other processes share the database")
def test_the_stc3_chinese_upload_completes_under_gunicorn(
    celery_worker_process, gunicorn, stc3_dir, make_project, make_user
):
    project = make_project("stc3", slug="zh")
    lead = make_user("lead")
    membership_add(project=project, user=lead, role="lead")
    session = gunicorn.login("lead", PASSWORD)
    with open(stc3_dir / "train_data_cn.json", "rb") as upload:
        response = gunicorn.post_form(
            session,
            "/projects/zh/manage/upload/",
            {"format": "auto"},
            "/projects/zh/manage/",
            files={"file": ("train_data_cn.json", upload, "application/json")},
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
