"""Property: arbitrary JSON to every page endpoint that takes a POST, and arbitrary bytes to every upload
(pages and API), never answer 5xx; a refused request (4xx) leaves the database exactly as it was."""

from __future__ import annotations

import io
import json
import os
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from annotator.models import (
    Assignment,
    Criterion,
    Dialogue,
    GoldCount,
    Judgement,
    Membership,
    Post,
    Project,
    Reordering,
)
from evaluation.models import Run, StatisticsJob
from tests.factories import project_with_work

pytestmark = pytest.mark.django_db

EXAMPLES = int(os.environ.get("PROPERTY_MAX_EXAMPLES", "40"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
MODELS = (Project, Criterion, Membership, Dialogue, Post, Assignment, Judgement, Reordering, GoldCount, Run)


def database_state() -> dict:
    """Every row of the tables a request could write (users, projects' content, runs, statistics jobs)."""
    state = {m.__name__: list(m.objects.order_by("pk").values_list()) for m in MODELS}
    state["User"] = list(get_user_model().objects.order_by("pk").values_list("pk", "username", "is_active"))
    state["StatisticsJob"] = list(StatisticsJob.objects.order_by("pk").values_list("project_id", "pending"))
    return state


def judgement_names():
    return st.sampled_from(["j:A:0", "j:S:0", "j:nugget:0", "j:nugget:1", "j:A:-1", "j:A:99999999999999999999"])


scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(
            judgement_names()
            | st.sampled_from(["reordering", "seconds", "name", "seed", "files"])
            | st.text(max_size=10),
            children,
            max_size=5,
        )
    ),
    max_leaves=25,
)
deeply_nested = st.integers(min_value=500, max_value=5000).map(lambda n: "[" * n + "]" * n)
json_bodies = json_values.map(lambda v: json.dumps(v, allow_nan=True)) | deeply_nested | st.text(max_size=50)


def zipped(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members:
            archive.writestr(name, content)
    return buffer.getvalue()


names = st.sampled_from(["x.json", "x.log.json", "x.jsonl", "x.xlsx", "x.zip", "x", "x.labels.json", "a/../x.json"])
member_lists = st.lists(
    st.tuples(names, st.binary(max_size=300) | json_bodies.map(str.encode)), max_size=4, unique_by=lambda m: m[0]
)
contents = st.binary(max_size=2000) | json_bodies.map(str.encode) | member_lists.map(zipped)
formats = st.sampled_from(["auto", "stc3", "dbdc", "nlpcc", "jsonl", "nonsense"])


@pytest.fixture
def world():
    """A project of work (its lead and an annotator with items), and a page client for each."""
    work = project_with_work("stc3", slug="prop", annotators=1)
    item = work.assignments_of(work.annotators[0])[0]
    annotator, lead = Client(), Client()
    annotator.force_login(work.annotators[0])
    lead.force_login(work.lead)
    api = APIClient()
    api.force_authenticate(work.lead)
    return {"work": work, "item": item, "annotator": annotator, "lead": lead, "api": api}


def without_drafts_of(state: dict, assignment_id: int) -> dict:
    """The state less the assignment's own row, judgements and reordering."""
    return {
        **state,
        "Assignment": [row for row in state["Assignment"] if row[0] != assignment_id],
        "Judgement": [row for row in state["Judgement"] if row[1] != assignment_id],
        "Reordering": [row for row in state["Reordering"] if row[1] != assignment_id],
    }


def check(response, before: dict, what: str, keeps_draft_of: int | None = None) -> dict:
    """No server error; a refusal changed nothing. Returns the state to compare the next request with.

    A refused submission keeps what it can as the annotator's draft (annotator.views.annotate._keep_as_draft):
    there, only that assignment's own draft may change.
    """
    assert response.status_code < 500, f"{what}: {response.status_code} {response.content[:300]!r}"
    after = database_state()
    if 400 <= response.status_code < 500:
        if keeps_draft_of is None:
            assert after == before, f"{what}: refused with {response.status_code} but the database changed"
        else:
            assert without_drafts_of(after, keeps_draft_of) == without_drafts_of(before, keeps_draft_of), what
    return after


def page_posts(world) -> list[tuple[Client, str]]:
    """Every page endpoint that takes a POST, with the client of the role that may use it."""
    item, slug, annotator, lead = world["item"].pk, "prop", world["annotator"], world["lead"]
    return [
        (annotator, f"/api/assignments/{item}/judgements/"),  # the page's save, with the page's session
        (annotator, f"/items/{item}/submit/"),
        (lead, f"/projects/{slug}/manage/guidelines/"),
        (lead, f"/projects/{slug}/manage/upload/"),
        (lead, f"/projects/{slug}/manage/members/"),
        (lead, f"/projects/{slug}/manage/assign/"),
        (lead, f"/projects/{slug}/manage/items/{item}/reopen/"),
        (lead, f"/projects/{slug}/dashboard/recompute/"),
        (lead, f"/projects/{slug}/runs/"),
        (lead, f"/projects/{slug}/runs/significance/"),
        (lead, f"/projects/{slug}/runs/reorderings/"),
        (lead, "/projects/new/"),
    ]


def test_arbitrary_json_to_every_page_endpoint(world):
    endpoints = page_posts(world)
    state = {"db": database_state()}

    @SETTINGS
    @given(which=st.integers(min_value=0, max_value=len(endpoints) - 1), body=json_bodies)
    def post(which, body):
        client, url = endpoints[which]
        response = client.post(url, data=body.encode("utf-8", "surrogatepass"), content_type="application/json")
        keeps = world["item"].pk if url.endswith("/submit/") else None
        state["db"] = check(response, state["db"], f"POST {url} {body[:80]!r}", keeps)

    post()


def test_arbitrary_bytes_to_every_upload(world):
    api, lead = world["api"], world["lead"]
    state = {"db": database_state()}

    def uploads(name: str, content: bytes, fmt: str):
        def file():  # a fresh file object per request: a request reads it to the end
            return SimpleUploadedFile(name, content)

        yield "page upload", lambda: lead.post("/projects/prop/manage/upload/", {"file": file(), "format": fmt})
        yield "page run upload", lambda: lead.post("/projects/prop/runs/", {"name": "r", "files": [file()]})
        yield (
            "API import",
            lambda: api.post(
                "/api/projects/prop/dialogues/import/", {"file": file(), "format": fmt}, format="multipart"
            ),
        )
        yield (
            "API run upload",
            lambda: api.post("/api/projects/prop/runs/", {"name": "r", "files": [file()]}, format="multipart"),
        )
        yield "API archive import", lambda: api.post("/api/archives/", {"file": file()}, format="multipart")

    @SETTINGS
    @given(name=names, content=contents, fmt=formats)
    def post(name, content, fmt):
        for what, call in uploads(name, content, fmt):
            response = call()
            state["db"] = check(response, state["db"], f"{what} of {name} ({len(content)} bytes)")

    post()
