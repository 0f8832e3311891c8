"""The REST API: tokens, roles, the same validation and bytes as the pages and commands, runs."""

import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.exporters import export_gold
from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, Judgement
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add
from evaluation.models import Run
from evaluation.services.statistics import project_statistics
from tests.fixtures.collections import dbdc_dialogue, stc3_dialogues, write_json
from tests.reference_scoring import random_stc3_run

pytestmark = pytest.mark.django_db


def client_for(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.fixture
def world(make_project, make_user, tmp_path):
    project = make_project("stc3", slug="p1", annotators_per_dialogue=1)
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    other_project = make_project("dbdc", slug="p2")
    lead, ann, other = make_user("lead"), make_user("ann"), make_user("other")
    membership_add(project=project, user=lead, role="lead")
    membership_add(project=project, user=ann, role="annotator")
    membership_add(project=project, user=other, role="annotator")
    membership_add(project=other_project, user=other, role="lead")
    assignments_create_balanced(project=project)
    return {"project": project, "other_project": other_project, "lead": lead, "ann": ann, "other": other}


def test_token_authentication(world):
    anonymous = APIClient()
    assert anonymous.get("/api/projects/").status_code in (401, 403)
    response = anonymous.post("/api/auth/token/", {"username": "ann", "password": "pw-for-tests-1"})
    assert response.status_code == 200 and response.json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    projects = client.get("/api/projects/").json()
    assert [p["slug"] for p in projects["results"]] == ["p1"] and projects["results"][0]["role"] == "annotator"
    assert [c["key"] for c in projects["results"][0]["criteria"]] == ["A", "S", "E", "nugget"]


def test_roles_are_per_project(world):
    other = client_for(world["other"])  # lead of p2, annotator of p1
    # allowed: 202 (the statistics asked of a worker) before the first recomputation
    assert other.get("/api/projects/p2/stats/").status_code == 202
    assert other.get("/api/projects/p1/stats/").status_code == 403
    assert other.get("/api/projects/p1/export/?format=stc3").status_code == 403
    assert client_for(world["lead"]).get("/api/projects/p2/").status_code == 404  # nobody in p2


def test_annotators_see_only_their_own_assignments_and_dialogues(world):
    ann = client_for(world["ann"])
    mine = ann.get("/api/assignments/").json()["results"]
    assert {a["id"] for a in mine} == set(
        Assignment.objects.filter(annotator=world["ann"]).values_list("pk", flat=True)
    )
    theirs = Assignment.objects.filter(annotator=world["other"]).first()
    assert ann.get(f"/api/assignments/{theirs.pk}/").status_code == 404
    assert ann.post(f"/api/assignments/{theirs.pk}/judgements/", {"judgements": []}, format="json").status_code == 404
    dialogues = ann.get("/api/projects/p1/dialogues/").json()["results"]
    assert {d["external_id"] for d in dialogues} == {a["dialogue"] for a in mine}
    lead_view = client_for(world["lead"]).get("/api/projects/p1/dialogues/?external_id=d2").json()
    assert lead_view["count"] == 1 and lead_view["results"][0]["n_posts"] == 2


def test_submitting_judgements_with_the_pages_validation(world):
    ann = client_for(world["ann"])
    item = (
        Assignment.objects.filter(annotator=world["ann"], dialogue__external_id="d2").first()
        or Assignment.objects.filter(annotator=world["ann"]).first()
    )
    n_turns = 3 if item.dialogue.external_id == "d1" else 2
    nuggets = ["CNUG0", "HNUG", "CNUG*"] if n_turns == 3 else ["CNUG0", "HNUG"]
    body = {
        "judgements": [{"criterion": k, "unit": 0, "value": "1"} for k in "ASE"]
        + [{"criterion": "nugget", "unit": t, "value": v} for t, v in enumerate(nuggets)],
        "submit": True,
    }
    bad = dict(body, judgements=body["judgements"][:-1] + [{"criterion": "nugget", "unit": n_turns - 1, "value": "XX"}])
    response = ann.post(f"/api/assignments/{item.pk}/judgements/", bad, format="json")
    assert response.status_code == 400 and "'XX' is not a value of nugget" in response.json()["detail"]
    missing_field = ann.post(
        f"/api/assignments/{item.pk}/judgements/", {"judgements": [{"criterion": "A"}]}, format="json"
    )
    assert missing_field.status_code == 400 and "unit" in json.dumps(missing_field.json()["judgements"])
    ok = ann.post(f"/api/assignments/{item.pk}/judgements/", body, format="json")
    assert ok.status_code == 200 and ok.json()["status"] == "submitted"
    assert Judgement.objects.filter(assignment=item).count() == 3 + n_turns
    again = ann.post(f"/api/assignments/{item.pk}/judgements/", body, format="json")  # a retried request
    assert again.status_code == 200 and Judgement.objects.filter(assignment=item).count() == 3 + n_turns


def test_judgements_merge_with_the_version_and_conflicts_answer_409(world):
    ann = client_for(world["ann"])
    item = Assignment.objects.filter(annotator=world["ann"]).first()
    url = f"/api/assignments/{item.pk}/judgements/"
    # given two clients that read the item at version 0
    assert ann.get(f"/api/assignments/{item.pk}/").json()["version"] == 0
    first = ann.post(url, {"judgements": [{"criterion": "A", "unit": 0, "value": "1"}], "version": 0}, format="json")
    assert first.status_code == 200 and first.json()["version"] == 1
    # when the second (stale) client saves another judgement, both are kept
    other = {"judgements": [{"criterion": "S", "unit": 0, "value": "0", "base": None}], "version": 0}
    assert ann.post(url, other, format="json").status_code == 200
    assert set(Judgement.objects.filter(assignment=item).values_list("criterion__key", "value")) == {
        ("A", "1"),
        ("S", "0"),
    }
    # and when it changes A, which it read empty, the answer is 409 naming it; nothing is overwritten
    clash = {"judgements": [{"criterion": "A", "unit": 0, "value": "-2", "base": ""}], "version": 0}
    response = ann.post(url, clash, format="json")
    assert response.status_code == 409
    assert response.json()["conflicts"] == [{"criterion": "A", "unit": 0, "stored": "1", "seen": "", "given": "-2"}]
    assert response.json()["version"] == 2
    assert Judgement.objects.get(assignment=item, criterion__key="A").value == "1"
    # an empty value removes a judgement
    removed = ann.post(url, {"judgements": [{"criterion": "S", "unit": 0, "value": ""}], "version": 2}, format="json")
    assert removed.status_code == 200 and removed.json()["version"] == 3
    assert list(Judgement.objects.filter(assignment=item).values_list("criterion__key", flat=True)) == ["A"]


@pytest.mark.eager_tasks(reason="the API's figures and files equal the commands' once their jobs have run")
def test_stats_and_export_equal_the_commands(world):
    lead = client_for(world["lead"])
    stats = lead.get("/api/projects/p1/stats/")
    answer = stats.json()
    live = answer.pop(
        "live"
    )  # whether the dashboard's live figures are current: tests/evaluation/test_live_freshness.py
    freshness = answer.pop("freshness")  # every derived part's: tests/evaluation/test_derived_freshness.py
    assert stats.status_code == 200 and answer == json.loads(json.dumps(project_statistics(world["project"])))
    assert set(live) == {"stale", "stale_since", "stale_because", "stale_reason", "built_at", "rebuild_seconds"}
    assert freshness["live"]["part"] == "live" and freshness["live"]["current"] is (not live["stale"])
    assert stats["X-Statistics-Judgements"] == "22"  # d1: 2 x (3 + 3), d2: 2 x (3 + 2)
    for fmt in ("stc3", "distributions-json", "distributions-csv"):
        response = lead.get(f"/api/projects/p1/export/?format={fmt}")
        assert response.status_code == 200 and response.streaming
        assert response.getvalue() == export_gold(project=world["project"], fmt=fmt)
    misfit = lead.get("/api/projects/p1/export/?format=dbdc")  # an STC-3 project is no DBDC collection
    assert misfit.status_code == 400 and "cannot be exported as dbdc" in misfit.json()["format"][0]
    bad = lead.get("/api/projects/p1/export/?format=xml")
    assert bad.status_code == 400 and "format" in bad.json()


@pytest.mark.eager_tasks(reason="what each import's job leaves, polled through the API")
def test_import_by_upload_names_the_error_and_changes_nothing(world, django_capture_on_commit_callbacks):
    # given a lead of a DBDC project; the job goes to the workers (here: runs in-process) once the request commits
    lead = client_for(world["other"])
    good = io.BytesIO(json.dumps(dbdc_dialogue("up1")).encode())
    good.name = "up1.log.json"
    with django_capture_on_commit_callbacks(execute=True):
        response = lead.post("/api/projects/p2/dialogues/import/", {"file": good, "format": "dbdc"}, format="multipart")
        # the answer is the job, not yet run, with the URL to poll it
        job = response.json()
        assert response.status_code == 202 and job["status"] == "pending"
        assert response["Location"] == job["url"] and job["url"].endswith(f"/api/projects/p2/imports/{job['id']}/")
    polled = lead.get(job["url"]).json()
    assert polled["status"] == "done" and polled["dialogues"] == 1 and polled["dialogues_written"] == 1
    assert polled["progress"] == 1.0 and polled["rows_written"] == 1 + 5 + 3 + 6  # dialogue, posts, assignments...
    broken = dbdc_dialogue("up2")
    broken["turns"][2]["annotations"][0]["breakdown"] = "Q"
    raw = io.BytesIO(json.dumps(broken).encode())
    raw.name = "up2.log.json"
    with django_capture_on_commit_callbacks(execute=True):
        job = lead.post("/api/projects/p2/dialogues/import/", {"file": raw}, format="multipart").json()
    failed = lead.get(job["url"]).json()
    assert failed["status"] == "failed" and failed["finished"]
    assert failed["record"] == "up2" and failed["field"] == "turns[2].annotations[0].breakdown"
    assert failed["error"].startswith("Nothing was imported. up2.log.json: dialogue up2: field turns[2]")
    assert world["other_project"].dialogues.count() == 1
    # both imports are listed, newest first
    listed = lead.get("/api/projects/p2/imports/").json()["results"]
    assert [(j["file_names"], j["status"]) for j in listed] == [("up2.log.json", "failed"), ("up1.log.json", "done")]


def test_an_import_waits_for_a_worker_as_a_pending_job(world):
    # given no commit yet (the job is sent to the workers once the request's transaction commits)
    lead = client_for(world["other"])
    upload = io.BytesIO(json.dumps(dbdc_dialogue("later")).encode())
    upload.name = "later.log.json"
    response = lead.post("/api/projects/p2/dialogues/import/", {"file": upload}, format="multipart")
    # then the answer is 202 with the job to poll, and nothing is imported yet
    assert response.status_code == 202 and response.json()["status"] == "pending"
    assert response.json()["message"] == "later.log.json is uploaded and waits for a worker."
    assert world["other_project"].dialogues.count() == 0


@pytest.mark.eager_tasks(reason="an import done by its job, then removed through the API")
def test_a_lead_removes_an_import_through_the_api(world, django_capture_on_commit_callbacks):
    lead = client_for(world["other"])
    upload = io.BytesIO(json.dumps(dbdc_dialogue("gone")).encode())
    upload.name = "gone.log.json"
    with django_capture_on_commit_callbacks(execute=True):
        job = lead.post("/api/projects/p2/dialogues/import/", {"file": upload}, format="multipart").json()
    assert client_for(world["lead"]).delete(f"/api/projects/p2/imports/{job['id']}/").status_code == 404
    removed = lead.delete(f"/api/projects/p2/imports/{job['id']}/")
    assert removed.status_code == 200
    assert removed.json() == {
        "batch": job["id"],
        "dialogues": 1,
        "assignments": 3,
        "submitted_judgements": 6,
        "native_submitted_judgements": 0,
        "draft_judgements": 0,
    }
    assert world["other_project"].dialogues.count() == 0
    assert lead.get(job["url"]).json()["status"] == "removed"
    assert lead.delete(f"/api/projects/p2/imports/{job['id']}/").status_code == 409


@pytest.mark.eager_tasks(reason="the scores the scoring job leaves, read through the API")
def test_runs_upload_score_and_per_dialogue(world, django_capture_on_commit_callbacks):
    lead = client_for(world["lead"])
    raw = io.BytesIO(json.dumps(random_stc3_run(stc3_dialogues(), 1)).encode())
    raw.name = "run.json"
    with django_capture_on_commit_callbacks(execute=True):
        response = lead.post("/api/projects/p1/runs/", {"name": "sys-a", "files": [raw]}, format="multipart")
    assert response.status_code == 202 and response.json()["status"] == "pending"
    run = Run.objects.get(name="sys-a")
    detail = lead.get(f"/api/projects/p1/runs/{run.pk}/").json()
    assert detail["status"] == "scored" and set(detail["scores"]["quality"]) == {"A", "S", "E"}
    per_dialogue = lead.get(f"/api/projects/p1/runs/{run.pk}/per-dialogue/").json()
    assert set(per_dialogue) == {"d1", "d2"}
    csv = lead.get(f"/api/projects/p1/runs/{run.pk}/per-dialogue/?format=csv").getvalue().decode().splitlines()
    assert csv[0].startswith("dialogue,A.nmd,A.rsnod") and len(csv) == 3
    bad = io.BytesIO(b'[{"id": "nope"}]')
    bad.name = "bad.json"
    with django_capture_on_commit_callbacks(execute=True):
        lead.post("/api/projects/p1/runs/", {"name": "sys-b", "files": [bad]}, format="multipart")
    rejected = lead.get("/api/projects/p1/runs/").json()["results"]
    assert [r["status"] for r in rejected] == ["scored", "failed"]
    assert "dialogue nope: field id: is not in the gold data" in rejected[1]["error"]


@pytest.mark.eager_tasks(reason="a run scored by its job, then deleted through the API")
def test_a_lead_deletes_a_run_through_the_api(world, django_capture_on_commit_callbacks):
    lead = client_for(world["lead"])
    raw = io.BytesIO(json.dumps(random_stc3_run(stc3_dialogues(), 2)).encode())
    raw.name = "run.json"
    with django_capture_on_commit_callbacks(execute=True):
        run_id = lead.post("/api/projects/p1/runs/", {"name": "gone", "files": [raw]}, format="multipart").json()["id"]
    assert client_for(world["other"]).delete(f"/api/projects/p1/runs/{run_id}/").status_code == 403  # annotator
    assert client_for(world["other"]).delete(f"/api/projects/p2/runs/{run_id}/").status_code == 404  # not p2's
    with django_capture_on_commit_callbacks(execute=True):
        assert lead.delete(f"/api/projects/p1/runs/{run_id}/").status_code == 204
    assert not Run.objects.filter(pk=run_id).exists()
    assert lead.delete(f"/api/projects/p1/runs/{run_id}/").status_code == 404


# Queries of each list endpoint, pinned: the same with 1 dialogue per annotator and with 21.
LIST_QUERIES = {"projects": 4, "dialogues": 5, "assignments": 3}


def test_list_endpoints_use_a_fixed_number_of_queries(world, tmp_path):
    lead, ann = client_for(world["lead"]), client_for(world["ann"])

    def counts() -> dict[str, int]:
        out = {}
        for name, client, url in (
            ("projects", lead, "/api/projects/"),
            ("dialogues", lead, "/api/projects/p1/dialogues/"),
            ("assignments", ann, "/api/assignments/"),
        ):
            with CaptureQueriesContext(connection) as context:
                assert client.get(url).status_code == 200
            out[name] = len(context.captured_queries)
        return out

    small = counts()
    extra = [dict(stc3_dialogues()[0], id=f"extra-{i}") for i in range(40)]
    dialogues_import(project=world["project"], paths=[write_json(tmp_path / "more.json", extra)])
    assignments_create_balanced(project=world["project"])
    assert counts() == small == LIST_QUERIES


def test_docs_are_served_without_a_cdn(world, client):
    client.force_login(world["lead"])
    page = client.get("/api/docs/").content.decode()
    assert "cdn" not in page.lower() and "/static/drf_spectacular_sidecar/swagger-ui-dist/" in page
    schema = client.get("/api/schema/?format=json").json()
    assert "/api/projects/{slug}/stats/" in schema["paths"]


def test_bad_query_parameters_are_400s_naming_the_parameter(world):
    lead = client_for(world["lead"])
    response = lead.get("/api/projects/p1/dialogues/", {"external_id": "a\x00b"})
    assert response.status_code == 400 and "external_id" in response.json()
    response = client_for(world["ann"]).get("/api/assignments/", {"status": "finished"})
    assert response.status_code == 400 and "status" in response.json()
    assert lead.get("/api/projects/p1/dialogues/a%00b/").status_code == 404


@pytest.mark.eager_tasks(reason="each odd upload's import job ends failed, polled through the API")
def test_odd_uploads_are_client_errors(world, django_capture_on_commit_callbacks):
    lead = client_for(world["other"])
    for name, content, fmt in (
        ("x\x00y.jsonl", b'{"id": 1}', "jsonl"),
        ("a" * 300 + ".jsonl", b"\xff\xfe", "jsonl"),
        ("sheet.xlsx", b"not a workbook", "nlpcc"),
        ("../../etc/passwd", b"[]", "stc3"),
    ):
        upload = io.BytesIO(content)
        upload.name = name
        with django_capture_on_commit_callbacks(execute=True):
            response = lead.post(
                "/api/projects/p2/dialogues/import/", {"file": upload, "format": fmt}, format="multipart"
            )
        assert response.status_code == 202, (name, response.content)
        job = lead.get(response.json()["url"]).json()
        assert job["status"] == "failed" and job["error"].startswith("Nothing was imported."), (name, job)
    assert world["other_project"].dialogues.count() == 0


def test_a_save_names_the_dialogue_by_its_external_id(world):
    # given an annotator's item
    item = Assignment.objects.filter(annotator=world["ann"]).select_related("dialogue").first()
    # when they save a draft through the API
    saved = client_for(world["ann"]).post(
        f"/api/assignments/{item.pk}/judgements/",
        {"judgements": [{"criterion": "A", "unit": 0, "value": "1"}]},
        format="json",
    )
    # then the answer names the dialogue as the list and the detail do
    assert saved.status_code == 200, saved.content
    body = saved.json()
    assert body["dialogue"] == item.dialogue.external_id and body["project"] == "p1"
    assert body["dialogue_id"] == item.dialogue_id
