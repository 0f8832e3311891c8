"""Every job ends done or failed with a message that can be stored and shown: hostile values (a
5,001-digit integer, NaN, Infinity, a NUL, a lone surrogate) are refused by the one input reader
naming the file, the record and the field, and whatever a job fails with is stored escaped."""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from annotator.models import ImportBatch, ImportStatus
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add
from evaluation.models import Run, RunStatus
from tests.fixtures.collections import stc3_dialogues, write_json
from tests.reference_scoring import random_stc3_run

pytestmark = pytest.mark.django_db

TURNS = '[{"speaker": "customer", "text": "hi"}, {"speaker": "helpdesk", "text": "hello"}]'


def line(meta: str = "{}", dialogue_id: str = '"d1"') -> str:
    """One JSON Lines dialogue, its id and ``meta`` given as JSON source (escapes kept as written)."""
    return '{"id": ' + dialogue_id + ', "turns": ' + TURNS + ', "meta": ' + meta + "}"


SURROGATE = "contains a lone surrogate (U+DC80 at position 1), not valid Unicode"
HOSTILE_IMPORTS = {
    "int-5001-digits": (
        line('{"n": ' + "7" * 5001 + "}"),
        "c.jsonl: dialogue d1: field meta.n: is an integer of 5001 digits; at most 308 are read",
    ),
    "nan": (line('{"score": NaN}'), "c.jsonl: dialogue d1: field meta.score: NaN is not a finite number"),
    "infinity": (
        line('{"w": [1, -Infinity]}'),
        "c.jsonl: dialogue d1: field meta.w[1]: -Infinity is not a finite number",
    ),
    "overflow-to-infinity": (line('{"w": 1e400}'), "c.jsonl: dialogue d1: field meta.w: 1e400 is not a finite number"),
    "nul-in-id": (
        line(dialogue_id='"d1\\u0000"'),
        "c.jsonl: dialogue line 1: field id: contains a NUL character (at position 2)",
    ),
    "surrogate-in-key": (line('{"k\\udc80": 1}'), f"c.jsonl: dialogue d1: field meta.'k\\udc80': {SURROGATE}"),
}


@pytest.fixture
def lead_client(make_project, make_user):
    project = make_project("dch1", slug="hostile")
    lead = make_user("hostile-lead")
    membership_add(project=project, user=lead, role="lead")
    client = Client()
    client.force_login(lead)
    return project, client


def upload_import(client, name: str, raw: bytes, django_capture_on_commit_callbacks):
    upload = io.BytesIO(raw)
    upload.name = name
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("lead_upload", args=["hostile"]), {"file": upload, "format": "jsonl"})
    assert response.status_code == 302
    return response


@pytest.mark.eager_tasks(reason="the refusal the import job stores, as the endpoint then answers it")
@pytest.mark.parametrize(("line", "message"), HOSTILE_IMPORTS.values(), ids=HOSTILE_IMPORTS.keys())
def test_a_hostile_import_is_refused_naming_file_record_and_field(
    lead_client, line, message, django_capture_on_commit_callbacks
):
    project, client = lead_client
    response = upload_import(client, "c.jsonl", line.encode() + b"\n", django_capture_on_commit_callbacks)
    batch = ImportBatch.objects.get(project=project)
    assert batch.status == ImportStatus.FAILED and batch.finished_at is not None
    assert batch.error == f"Nothing was imported. {message}"
    assert project.dialogues.count() == 0
    page = client.get(response["Location"]).content.decode()
    assert "Nothing was imported." in page and "c.jsonl" in page


@pytest.mark.eager_tasks(reason="what the import job stored, read back")
def test_the_longest_integer_read_is_stored_and_read_back_exactly(lead_client, django_capture_on_commit_callbacks):
    """308 digits, read exactly by the standard library (a byte order mark makes orjson refuse the file)."""
    project, client = lead_client
    longest = int("7" * 308)
    raw = "\ufeff".encode() + line('{"n": ' + str(longest) + ', "k": -' + str(longest) + "}").encode()
    upload_import(client, "c.jsonl", raw, django_capture_on_commit_callbacks)
    assert ImportBatch.objects.get(project=project).status == ImportStatus.DONE
    assert project.dialogues.get().source_meta["meta"] == {"n": longest, "k": -longest}


@pytest.mark.eager_tasks(reason="the refusal the import job stores, as the status endpoint shows it")
def test_the_refusal_is_shown_in_the_readers_language(lead_client, django_capture_on_commit_callbacks):
    project, client = lead_client
    line, _message = HOSTILE_IMPORTS["int-5001-digits"]
    upload_import(client, "c.jsonl", line.encode(), django_capture_on_commit_callbacks)
    batch = ImportBatch.objects.get(project=project)
    client.cookies["django_language"] = "ja"
    state = client.get(reverse("lead_import_status", args=["hostile", batch.pk])).json()
    assert state["status"] == "failed" and "5001" in state["message"] and "308" in state["message"]
    assert "is an integer of" not in state["message"]  # translated


@pytest.mark.eager_tasks(reason="the refusal the crashed import job stores")
def test_an_unforeseen_crash_with_an_unstorable_message_still_refuses_the_import(
    lead_client, monkeypatch, django_capture_on_commit_callbacks
):
    """Whatever an import fails with, the batch ends refused with a message that could be stored."""
    project, client = lead_client

    def crash(**_kwargs):
        raise ValueError("bad \x00 and \ud800 and " + "x" * 10_000)

    monkeypatch.setattr("annotator.services.import_batches.dialogues_import", crash)
    upload_import(client, "c.jsonl", b"{}", django_capture_on_commit_callbacks)
    batch = ImportBatch.objects.get(project=project)
    assert batch.status == ImportStatus.FAILED
    assert batch.error.startswith("Nothing was imported. c.jsonl: the file could not be read (ValueError: bad ")
    assert "bad \\x00 and \\ud800 and xxx" in batch.error and len(batch.error) == 5000


# --- runs --------------------------------------------------------------------------------------------


@pytest.fixture
def runs_project(make_project, make_user, tmp_path):
    project = make_project("stc3", slug="hostile-runs")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    lead = make_user("runs-lead")
    membership_add(project=project, user=lead, role="lead")
    client = Client()
    client.force_login(lead)
    return project, client


def run_with_id(escaped_id: str) -> bytes:
    """A valid run whose first dialogue id is given as JSON source (escapes kept as written)."""
    run = random_stc3_run(stc3_dialogues(), 3)
    run[0]["id"] = "@ID@"
    return json.dumps(run).encode().replace(b'"@ID@"', f'"{escaped_id}"'.encode())


HOSTILE_RUNS = {
    "nul-in-id": (run_with_id("d1\\u0000"), "run.json: field [0].id: contains a NUL character (at position 2)"),
    "surrogate-in-id": (
        run_with_id("d1\\ud800"),
        "run.json: field [0].id: contains a lone surrogate (U+D800 at position 2), not valid Unicode",
    ),
}


@pytest.mark.eager_tasks(reason="the rejection the scoring job stores, as the leaderboard shows it")
@pytest.mark.parametrize(("content", "message"), HOSTILE_RUNS.values(), ids=HOSTILE_RUNS.keys())
def test_a_hostile_run_is_rejected_and_score_again_rejects_it_again(
    runs_project, content, message, django_capture_on_commit_callbacks
):
    project, client = runs_project
    upload = io.BytesIO(content)
    upload.name = "run.json"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/projects/{project.slug}/runs/", {"name": "hostile", "files": [upload], "alpha": "0.5"}
        )
    assert response.status_code == 302
    run = Run.objects.get(project=project, name="hostile")
    assert run.status == RunStatus.FAILED and run.error == message
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/projects/{project.slug}/runs/{run.pk}/rescore/").status_code == 302
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.error == message
    assert "run.json: field [0].id" in client.get(f"/projects/{project.slug}/runs/").content.decode()


@pytest.mark.eager_tasks(reason="the rejection the scoring job stores")
def test_a_rejection_message_that_cannot_be_stored_is_stored_escaped(
    runs_project, monkeypatch, django_capture_on_commit_callbacks
):
    from evaluation.runs.services.upload import run_upload
    from scoring.errors import InputError

    project, _client = runs_project

    def refuse(**_kwargs):
        raise InputError("run.json", "dialogue d1\x00\udfff is not in the project", record="d1\x00")

    monkeypatch.setattr("evaluation.runs.services.upload.run_score", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        run = run_upload(project=project, name="odd", files=[("run.json", b"[]")])
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error == "run.json: dialogue d1\\x00: dialogue d1\\x00\\udfff is not in the project"


def test_a_failed_recomputation_records_its_message_storable(make_project, monkeypatch):
    from evaluation.models import StatisticsJob
    from evaluation.services.jobs import statistics_job_run

    project = make_project("stc3", slug="hostile-stats")
    StatisticsJob.objects.create(project=project, pending=True)

    def crash(**_kwargs):
        raise ValueError("d1\x00\udc80")

    monkeypatch.setattr("evaluation.services.jobs.statistics_recompute", crash)
    with pytest.raises(ValueError):
        statistics_job_run(project_id=project.pk)
    job = StatisticsJob.objects.get(project=project)
    assert not job.pending and job.finished_at is not None
    assert job.last_error == "the statistics could not be computed (ValueError: d1\\x00\\udc80)"


# --- through the real worker ---------------------------------------------------------------------------


@pytest.mark.worker
@pytest.mark.postgres(reason="a Celery worker in another process, through Redis, shares the database")
@pytest.mark.django_db(transaction=True)
def test_hostile_uploads_through_the_real_worker_end_failed(celery_worker_process, make_project, make_user, tmp_path):
    """The API answers 202 while the worker reads; every hostile file ends failed with its message."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from tests.waiting import wait_for

    imports = make_project("dch1", slug="hostile-w")
    runs = make_project("stc3", slug="hostile-wr")
    dialogues_import(project=runs, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    lead = make_user("hostile-w-lead")
    for project in (imports, runs):
        membership_add(project=project, user=lead, role="lead")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=lead).key}")
    batches = {}
    for case, (line, message) in HOSTILE_IMPORTS.items():
        upload = io.BytesIO(line.encode())
        upload.name = "c.jsonl"
        answer = api.post("/api/projects/hostile-w/dialogues/import/", {"file": upload, "format": "jsonl"})
        assert answer.status_code in (202, 400), answer.content
        batches[case] = (answer.json()["id"], message)
    uploaded = {}
    for case, (content, message) in HOSTILE_RUNS.items():
        upload = io.BytesIO(content)
        upload.name = "run.json"
        answer = api.post("/api/projects/hostile-wr/runs/", {"name": case, "files": [upload]}, format="multipart")
        assert answer.status_code == 202, answer.content
        uploaded[case] = (answer.json()["id"], message)

    def ended() -> bool:
        return not ImportBatch.objects.filter(status__in=[ImportStatus.PENDING, ImportStatus.RUNNING]).exists() and (
            not Run.objects.filter(status=RunStatus.PENDING).exists()
        )

    assert wait_for(ended, 60)
    for case, (batch_id, message) in batches.items():
        batch = ImportBatch.objects.get(pk=batch_id)
        assert (batch.status, batch.error) == (ImportStatus.FAILED, f"Nothing was imported. {message}"), case
    for case, (run_id, message) in uploaded.items():
        shown = api.get(f"/api/projects/hostile-wr/runs/{run_id}/").json()
        assert (shown["status"], shown["error"]) == ("failed", message), case
