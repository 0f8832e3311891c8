"""Page-level guarantees with Django's test client: CSRF, permissions, bounded queries."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, Membership
from annotator.services.imports import dialogues_import
from tests.factories import page_save, project_with_work
from tests.fixtures.collections import stc3_dialogues, write_json

pytestmark = pytest.mark.django_db


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
    body = {"judgements": [{"criterion": "A", "unit": 0, "value": "1", "base": ""}]}
    saved = client.post(reverse("api-judgements", args=[item.pk]), data=body, content_type="application/json")
    assert saved.status_code == 403 and "CSRF" in saved.json()["detail"]
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
# +1 each: participant? qualified? (annotate: clock); the lead's page: the criteria (label gold); the annotate
# page's progress: its counts by status and the next item asked alone (LIMIT 1), not every assignment read
PAGE_QUERIES = {"queue": 6, "annotate": 11, "lead_project": 14}


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


def test_autosave_answers_json_and_refuses_bad_values_in_the_persons_language(setup, client):
    _project, ann, _other, _lead = setup
    client.force_login(ann)
    item = Assignment.objects.filter(annotator=ann).first()
    ok = page_save(client, item, {"j:A:0": "1"}, seconds=4)
    assert ok.status_code == 200 and ok.json()["seconds_spent"] == 4 and ok.json()["stale"] is False
    bad = page_save(client, item, {"j:A:0": "9"})
    assert bad.status_code == 400 and bad.json()["reason"] == "invalid"
    assert "'9' is not a value of A" in bad.json()["problems"][0]
    malformed = client.post(
        reverse("api-judgements", args=[item.pk]),
        data={"judgements": [{"criterion": "A", "unit": -1, "value": "1"}]},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="ja",
    )
    assert malformed.status_code == 400 and malformed.json()["reason"] == "invalid"
    assert malformed.json()["problems"][0].startswith("judgements.0.unit: ")
    assert "この値は0以上にしてください" in malformed.json()["problems"][0]  # DRF's message, in Japanese
    assert list(item.judgements.values_list("value", flat=True)) == ["1"]


def test_signed_out_saves_answer_json_401_and_a_login_never_returns_to_a_post_only_url(setup, client):
    _project, ann, _other, _lead = setup
    item = Assignment.objects.filter(annotator=ann).first()
    # given nobody signed in: the page's save (the API) gets a JSON 401, not a redirect
    response = page_save(client, item, {"j:A:0": "1"}, base={"j:A:0": ""}, version=0)
    assert response.status_code == 401
    state = client.get(reverse("draft", args=[item.pk]), HTTP_ACCEPT="application/json")
    assert state.status_code == 401 and state.json()["reason"] == "signed_out"
    assert state.json()["problems"] == ["You were signed out: sign in again (your answers are kept)."]
    # a plain form submission is sent to the login page, to come back to the item's page (a GET URL)
    form = client.post(reverse("submit", args=[item.pk]), {"j:A:0": "1"})
    assert form.status_code == 302
    assert form["Location"] == f"{reverse('login')}?next=/items/{item.pk}/"
    # and once signed in, the submit URL asked for with GET leads to the item, not to a 405
    client.force_login(ann)
    assert client.get(reverse("submit", args=[item.pk])).url == reverse("annotate", args=[item.pk])
    assert not item.judgements.exists()
    # the page's autosave URL takes no saves any more: one protocol, the API's
    assert client.post(reverse("draft", args=[item.pk]), data={}, content_type="application/json").status_code == 405


def test_item_pages_are_never_stored_by_the_browser(setup, client):
    _project, ann, _other, _lead = setup
    client.force_login(ann)
    item = Assignment.objects.filter(annotator=ann).first()
    response = client.get(reverse("annotate", args=[item.pk]))
    assert "no-store" in response["Cache-Control"]


def test_autosave_state_and_merges_with_the_version(setup, client):
    _project, ann, _other, _lead = setup
    client.force_login(ann)
    item = Assignment.objects.filter(annotator=ann).first()

    # given two tabs at version 0: the first saves A, the second (stale) saves S
    first = page_save(client, item, {"j:A:0": "1"}, base={"j:A:0": ""}, version=0)
    assert first.status_code == 200 and first.json()["version"] == 1 and first.json()["stale"] is False
    second = page_save(client, item, {"j:S:0": "0"}, base={"j:S:0": ""}, version=0)
    # then both are kept and the stale tab is sent the whole state to show the other answer
    assert second.status_code == 200 and second.json()["stale"] is True and second.json()["version"] == 2
    assert second.json()["judgements"] == [
        {"criterion": "A", "unit": 0, "value": "1"},
        {"criterion": "S", "unit": 0, "value": "0"},
    ]
    # when the stale tab changes A, which it saw empty, it gets a 409 naming the conflict and the state
    clash = page_save(client, item, {"j:A:0": "-1"}, base={"j:A:0": ""}, version=0)
    assert clash.status_code == 409 and clash.json()["reason"] == "conflict"
    assert clash.json()["conflicts"] == [{"criterion": "A", "unit": 0, "stored": "1", "seen": "", "given": "-1"}]
    assert {"criterion": "A", "unit": 0, "value": "1"} in clash.json()["judgements"] and clash.json()["version"] == 2
    # and the GET gives the state with a CSRF token for the page
    state = client.get(reverse("draft", args=[item.pk]), HTTP_ACCEPT="application/json").json()
    assert state["version"] == 2 and state["judgements"] == {"j:A:0": "1", "j:S:0": "0"} and state["csrf_token"]


def test_a_base_is_checked_whatever_the_version_and_every_clash_is_named(setup, client):
    _project, ann, _other, _lead = setup
    client.force_login(ann)
    item = Assignment.objects.filter(annotator=ann).first()
    assert page_save(client, item, {"j:A:0": "1", "j:S:0": "0", "j:E:0": "1"}, version=0).status_code == 200
    # given a page that learnt the current version (1) but queued its answers when it saw nothing there
    clash = page_save(
        client,
        item,
        {"j:A:0": "-1", "j:S:0": "1", "j:E:0": "1"},
        base=dict.fromkeys(("j:A:0", "j:S:0", "j:E:0"), ""),
        version=1,
    )
    # then nothing is written over the answers it never saw, and each clash is named with both values
    assert clash.status_code == 409
    assert [(c["criterion"], c["stored"], c["seen"], c["given"]) for c in clash.json()["conflicts"]] == [
        ("A", "1", "", "-1"),
        ("S", "0", "", "1"),
    ]
    assert set(item.judgements.values_list("criterion__key", "value")) == {("A", "1"), ("S", "0"), ("E", "1")}
    # once it saw them (its base is the stored value), its choice is written
    chosen = page_save(client, item, {"j:A:0": "-1", "j:S:0": "1"}, base={"j:A:0": "1", "j:S:0": "0"}, version=1)
    assert chosen.status_code == 200
    assert set(item.judgements.values_list("criterion__key", "value")) == {("A", "-1"), ("S", "1"), ("E", "1")}


def test_refusals_name_their_reason(setup, client):
    _project, ann, other, _lead = setup
    client.force_login(ann)
    theirs = Assignment.objects.filter(annotator=other).first()
    gone = page_save(client, theirs, {"j:A:0": "1"})
    assert gone.status_code == 404 and gone.json()["reason"] == "gone" and gone.json()["detail"]
    Membership.objects.filter(user=ann).update(active=False)
    mine = Assignment.objects.filter(annotator=ann).first()
    removed = page_save(client, mine, {"j:A:0": "1"})
    assert removed.status_code == 403 and removed.json()["reason"] == "removed"
    assert "no longer a member" in removed.json()["detail"]


def test_a_refused_submission_names_turns_and_keeps_the_url_on_the_item(setup, client):
    _project, ann, _other, _lead = setup
    client.force_login(ann)
    item = Assignment.objects.filter(annotator=ann, dialogue__external_id="d1").first()
    # the page's script (the API): 400 with the messages and the fields to highlight
    response = page_save(client, item, {"j:A:0": "1", "j:nugget:1": "HNUG"}, version=0, submit=True)
    assert response.status_code == 400 and response.json()["reason"] == "invalid"
    assert "Nugget type is missing for turn 1 (customer) and turn 3 (customer)" in response.json()["problems"]
    assert response.json()["missing"] == ["j:S:0", "j:E:0", "j:nugget:0", "j:nugget:2"]
    # a plain form: back to the item's URL, the messages shown there and the answers kept as a draft
    form = client.post(reverse("submit", args=[item.pk]), {"j:A:0": "1", "j:nugget:1": "HNUG", "version": "0"})
    assert form.status_code == 302 and form.url == reverse("annotate", args=[item.pk])
    page = client.get(form.url).content.decode()
    assert "Nugget type is missing for turn 1 (customer) and turn 3 (customer)" in page
    assert 'data-name="j:nugget:0"' in page and "question select-question missing" in page
    assert set(item.judgements.values_list("criterion__key", "unit", "value")) == {("A", 0, "1"), ("nugget", 1, "HNUG")}
