"""Page-level guarantees with Django's test client: CSRF, permissions, bounded queries."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from annotator.models import Assignment
from annotator.services.assignment import assignments_create_balanced
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add
from tests.fixtures.collections import stc3_dialogues, write_json

pytestmark = [pytest.mark.django_db, pytest.mark.sqlite]


@pytest.fixture
def setup(make_project, make_user, tmp_path):
    project = make_project("stc3", annotators_per_dialogue=2)
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    ann, other, lead = make_user("ann"), make_user("other"), make_user("lead")
    membership_add(project=project, user=ann, role="annotator")
    membership_add(project=project, user=other, role="annotator")
    membership_add(project=project, user=lead, role="lead")
    assignments_create_balanced(project=project)
    return project, ann, other, lead


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


def test_pages_use_a_bounded_number_of_queries(setup, client, django_assert_max_num_queries):
    project, ann, _other, lead = setup
    client.force_login(ann)
    item = Assignment.objects.filter(annotator=ann).first()
    with django_assert_max_num_queries(12):
        assert client.get(reverse("queue", args=[project.slug])).status_code == 200
    with django_assert_max_num_queries(16):
        assert client.get(reverse("annotate", args=[item.pk])).status_code == 200
    client.force_login(lead)
    with django_assert_max_num_queries(16):
        assert client.get(reverse("lead_project", args=[project.slug])).status_code == 200


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
