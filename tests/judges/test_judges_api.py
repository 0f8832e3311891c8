"""The judges' REST endpoints: list, create by upload or from a run, remove; leads only, by token."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator.models import Judge
from annotator.services.demo import DEMO_DIR
from evaluation.runs.services.scoring import run_score
from tests.factories import api_client, project_with_submissions
from tests.fixtures.collections import write_json
from tests.reference_scoring import random_stc3_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def work():
    return project_with_submissions("stc3", slug="judges-api")


def judge_file(project) -> bytes:
    ids = list(project.dialogues.values_list("external_id", flat=True))
    lines = [{"id": i, "labels": [{"criterion": "A", "distribution": {"1": 0.6, "2": 0.4}}]} for i in ids]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def test_a_lead_uploads_lists_and_removes_a_judge(work):
    client = api_client(work.lead)
    url = f"/api/projects/{work.project.slug}/judges/"
    upload = SimpleUploadedFile("llm.jsonl", judge_file(work.project))
    created = client.post(url, {"name": "llm", "file": upload, "description": "GPT at t=0"}, format="multipart")
    assert created.status_code == 201, created.content
    body = created.json()
    n = work.project.dialogues.count()
    assert (body["name"], body["kind"], body["n_labels"], body["n_missing"]) == ("llm", "imported", n, 0)
    assert body["source"] == {"files": ["llm.jsonl"], "format": "labels"}
    listed = client.get(url).json()
    assert [j["name"] for j in listed] == ["llm"]
    assert client.get(f"{url}{body['id']}/").json()["description"] == "GPT at t=0"
    assert client.delete(f"{url}{body['id']}/").status_code == 204
    assert client.get(url).json() == [] and not Judge.objects.exists()


def test_a_wrong_label_answers_400_naming_file_record_and_field(work):
    client = api_client(work.lead)
    line = {"id": "nowhere", "labels": [{"criterion": "A", "value": "1"}]}
    upload = SimpleUploadedFile("bad.jsonl", (json.dumps(line) + "\n").encode())
    answer = client.post(
        f"/api/projects/{work.project.slug}/judges/", {"name": "x", "file": upload}, format="multipart"
    )
    assert answer.status_code == 400
    assert (answer.json()["file"], answer.json()["record"], answer.json()["field"]) == ("bad.jsonl", "nowhere", "id")
    assert not Judge.objects.exists()


def test_a_run_is_registered_as_a_judge(work, tmp_path):
    dialogues = json.loads((DEMO_DIR / "stc3.json").read_text())
    run = run_score(
        project=work.project, path=write_json(tmp_path / "run.json", random_stc3_run(dialogues, seed=1)), name="sys"
    )
    answer = api_client(work.lead).post(
        f"/api/projects/{work.project.slug}/judges/", {"name": "sys", "run": run.pk}, format="json"
    )
    assert answer.status_code == 201, answer.content
    assert answer.json()["kind"] == "run" and answer.json()["n_labels"] > 0


def test_annotators_cannot_see_or_create_judges(work):
    client = api_client(work.annotators[0])
    url = f"/api/projects/{work.project.slug}/judges/"
    assert client.get(url).status_code == 403
    upload = SimpleUploadedFile("llm.jsonl", judge_file(work.project))
    assert client.post(url, {"name": "llm", "file": upload}, format="multipart").status_code == 403
    assert not Judge.objects.exists()


def test_the_judges_page_is_for_leads(work, client):
    url = f"/projects/{work.project.slug}/manage/judges/"
    client.force_login(work.annotators[0])
    assert client.get(url).status_code in (403, 404)
    upload = SimpleUploadedFile("llm.jsonl", judge_file(work.project))
    assert client.post(url, {"name": "llm", "file": upload}).status_code in (403, 404)
    assert not Judge.objects.exists()
    client.force_login(work.lead)
    upload = SimpleUploadedFile("llm.jsonl", judge_file(work.project))
    assert client.post(url, {"name": "llm", "file": upload}).status_code == 302
    judge = Judge.objects.get()
    assert client.post(f"{url}{judge.pk}/remove/").status_code == 302 and not Judge.objects.exists()
