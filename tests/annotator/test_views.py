"""Page-level guarantees with Django's test client: CSRF, permissions, bounded queries."""

import json

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.models import Assignment
from annotator.services.assignment import assignments_create_balanced
from annotator.services.imports import dialogues_import
from tests.factories import project_with_work
from tests.fixtures.collections import stc3_dialogues, write_json

pytestmark = [pytest.mark.django_db, pytest.mark.sqlite]


@pytest.fixture
def setup(db, tmp_path):
    work = project_with_work(
        "stc3",
        paths=[write_json(tmp_path / "s.json", stc3_dialogues())],
        lead_name="lead",
        annotator_names=["ann", "other"],
    )
    return work.project, work.annotators[0], work.annotators[1], work.lead


def test_forms_and_autosave_require_the_csrf_token(setup):
    _project, ann, _other, _lead = setup
    client = Client(enforce_csrf_checks=True)
    client.force_login(ann)
    item = Assignment.objects.filter(annotator=ann).first()
    assert (
        client.post(
            reverse("draft", args=[item.pk]), data=json.dumps({"j:A:0": "1"}), content_type="application/json"
        ).status_code
        == 403
    )
    assert client.post(reverse("submit", args=[item.pk]), {"j:A:0": "1"}).status_code == 403
    assert not item.judgements.exists()


def test_permissions(setup, client):
    project, ann, other, lead = setup
    theirs = Assignment.objects.filter(annotator=other).first()
    client.force_login(ann)
    assert client.get(reverse("annotate", args=[theirs.pk])).status_code == 404
    assert client.post(reverse("submit", args=[theirs.pk]), {"j:A:0": "1"}).status_code == 404
    assert client.get(reverse("lead_project", args=[project.slug])).status_code == 403
    assert client.post(reverse("lead_assign", args=[project.slug])).status_code == 403
    assert client.post(reverse("lead_reopen", args=[project.slug, theirs.pk])).status_code == 403
    client.force_login(lead)
    assert client.get(reverse("lead_project", args=[project.slug])).status_code == 200
    client.logout()
    assert client.get(reverse("queue", args=[project.slug])).status_code == 302  # to the login page


def more_dialogues(n: int) -> list[dict]:
    """``n`` small STC-3 dialogues with new ids, to grow a project."""
    out = []
    for i in range(n):
        dialogue = dict(stc3_dialogues()[0], id=f"extra-{i}")
        out.append(dialogue)
    return out


def count_queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as context:
        assert client.get(url).status_code == 200
    return len(context.captured_queries)


# The number of queries of each page, pinned: the same with 2 dialogues and with 22.
PAGE_QUERIES = {"queue": 5, "annotate": 7, "lead_project": 12}


def test_pages_use_a_fixed_number_of_queries(setup, client, tmp_path):
    project, ann, _other, lead = setup

    def counts() -> dict[str, int]:
        item = Assignment.objects.filter(annotator=ann).first()
        client.force_login(ann)
        out = {
            "queue": count_queries(client, reverse("queue", args=[project.slug])),
            "annotate": count_queries(client, reverse("annotate", args=[item.pk])),
        }
        client.force_login(lead)
        out["lead_project"] = count_queries(client, reverse("lead_project", args=[project.slug]))
        return out

    small = counts()
    dialogues_import(project=project, paths=[write_json(tmp_path / "more.json", more_dialogues(20))])
    assignments_create_balanced(project=project)
    assert Assignment.objects.filter(annotator=ann).count() == 22
    assert counts() == small == PAGE_QUERIES


def test_autosave_answers_json_and_refuses_bad_values(setup, client):
    _project, ann, _other, _lead = setup
    client.force_login(ann)
    item = Assignment.objects.filter(annotator=ann).first()
    ok = client.post(
        reverse("draft", args=[item.pk]), data=json.dumps({"j:A:0": "1", "seconds": 4}), content_type="application/json"
    )
    assert ok.status_code == 200 and ok.json()["ok"] and ok.json()["seconds_spent"] == 4
    bad = client.post(
        reverse("draft", args=[item.pk]), data=json.dumps({"j:A:0": "9"}), content_type="application/json"
    )
    assert bad.status_code == 400 and "'9' is not a value of A" in bad.json()["problems"][0]
    assert list(item.judgements.values_list("value", flat=True)) == ["1"]
