"""A run never stays "Waiting to be scored": a reader error of any kind rejects it with the message,
and a run whose task never reached the workers is queued again."""

import io
import json
import zipfile

import pytest

from annotator.services.imports import dialogues_import
from evaluation.models import RunStatus
from evaluation.runs.services.upload import run_upload
from tests.fixtures.collections import stc3_dialogues, write_json
from tests.reference_scoring import random_stc3_run

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.eager_tasks(reason="each run's scoring job, whose outcome (scored or rejected) the tests read"),
]


@pytest.fixture
def project(make_project, tmp_path):
    project = make_project("stc3", slug="runs")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    return project


def deeply_nested(depth: int = 20_000) -> bytes:
    return b"[" * depth + b"]" * depth


def zip_with_bad_crc() -> bytes:
    buffer = io.BytesIO()
    payload = json.dumps(random_stc3_run(stc3_dialogues(), 3)).encode()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("run.json", payload)
    raw = bytearray(buffer.getvalue())
    at = raw.index(payload[:20])
    raw[at + 5] ^= 0x55  # the stored bytes no longer match the CRC in the header
    return bytes(raw)


def huge_probability() -> bytes:
    run = random_stc3_run(stc3_dialogues(), 4)
    run[0]["quality"]["A"] = {"-2": 1e308, "-1": 1e308, "0": 1e308, "1": 0, "2": 0}
    run[1]["nugget"][0] = {"CNUG0": 1e308, "CNUG": 1e308, "CNUG*": 0, "CNaN": 0}
    return json.dumps(run).encode()


@pytest.mark.parametrize(
    ("filename", "content", "message"),
    [
        ("nested.json", deeply_nested(), "nested too deeply"),
        ("run.zip", zip_with_bad_crc(), "Bad CRC-32"),
        ("huge.json", huge_probability(), "probabilities sum to inf, not 1"),
    ],
    ids=["nesting-20000", "zip-bad-crc", "probability-1e308"],
)
def test_files_that_crash_a_reader_reject_the_run_with_the_message(
    project, filename, content, message, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = run_upload(project=project, name=filename, files=[(filename, content)])
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert message in run.error and filename in run.error


def test_an_unforeseen_reader_crash_still_rejects_the_run(project, monkeypatch, django_capture_on_commit_callbacks):
    def crash(**_kwargs):
        raise IndexError("list index out of range")

    monkeypatch.setattr("evaluation.runs.services.upload.run_score", crash)
    with django_capture_on_commit_callbacks(execute=True):
        run = run_upload(project=project, name="odd", files=[("odd.json", b"[]")])
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "IndexError: list index out of range" in run.error


def upload_while_the_broker_is_down(project, monkeypatch, name, django_capture_on_commit_callbacks):
    """A run uploaded while the broker cannot be reached: kept, pending, not handed to the workers."""
    with monkeypatch.context() as down:
        down.setattr("config.enqueue.task_send", lambda *_a, **_k: False)
        with django_capture_on_commit_callbacks(execute=True):
            run = run_upload(
                project=project,
                name=name,
                files=[("run.json", json.dumps(random_stc3_run(stc3_dialogues(), 5)).encode())],
            )
    run.refresh_from_db()
    assert run.status == RunStatus.PENDING and run.queued_at is None
    return run


def test_the_sweep_sends_runs_that_never_reached_the_workers(project, monkeypatch, django_capture_on_commit_callbacks):
    from evaluation.tasks import requeue_unqueued_runs

    run = upload_while_the_broker_is_down(project, monkeypatch, "sys-a", django_capture_on_commit_callbacks)
    assert requeue_unqueued_runs.apply().get() == 1
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED and run.queued_at is not None
    assert requeue_unqueued_runs.apply().get() == 0  # nothing left to send


def test_opening_the_leaderboard_sends_nothing(project, monkeypatch, make_user, django_capture_on_commit_callbacks):
    """No sweep runs inside a GET (#40): the leaderboard shows the run waiting; beat's sweep sends it (above)."""
    from django.test import Client

    from annotator.services.projects import membership_add

    run = upload_while_the_broker_is_down(project, monkeypatch, "sys-b", django_capture_on_commit_callbacks)
    lead = make_user("lead")
    membership_add(project=project, user=lead, role="lead")
    client = Client()
    client.force_login(lead)
    page = client.get(f"/projects/{project.slug}/runs/")
    assert page.status_code == 200
    run.refresh_from_db()
    assert run.status == RunStatus.PENDING and run.queued_at is None


def test_score_again_on_the_leaderboard_and_in_the_api(
    project, make_user, monkeypatch, django_capture_on_commit_callbacks
):
    from django.test import Client
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from annotator.services.projects import membership_add

    lead = make_user("lead")
    membership_add(project=project, user=lead, role="lead")
    # a run rejected because a dialogue it scores was not imported yet (strict mode checks the other way round)
    run_data = random_stc3_run(stc3_dialogues(), 6) + [{"id": "d3", "quality": {}}]
    with django_capture_on_commit_callbacks(execute=True):
        run = run_upload(project=project, name="early", files=[("early.json", json.dumps(run_data).encode())])
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "d3" in run.error
    client = Client()
    client.force_login(lead)
    page = client.get(f"/projects/{project.slug}/runs/").content.decode()
    assert f'action="/projects/{project.slug}/runs/{run.pk}/rescore/"' in page and "Score again" in page
    # the dialogue arrives; the lead scores the run again and it is scored from the files it kept
    dialogues_import(project=project, paths=[write_json_tmp(dict(stc3_dialogues()[1], id="d3"))])
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/projects/{project.slug}/runs/{run.pk}/rescore/").status_code == 302
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED, run.error
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=lead).key}")
    # and in the API, for a run still waiting
    waiting = upload_while_the_broker_is_down(project, monkeypatch, "waiting", django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.post(f"/api/projects/{project.slug}/runs/{waiting.pk}/rescore/")
    assert answer.status_code == 202
    waiting.refresh_from_db()
    assert waiting.status == RunStatus.SCORED


def write_json_tmp(dialogue: dict):
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp())
    return write_json(folder / "more.json", [dialogue])
