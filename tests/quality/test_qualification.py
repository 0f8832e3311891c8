"""Qualification: training items with feedback; real items stay closed (pages and API) below the pass mark."""

import pytest

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, Qualification
from annotator.services.quality_items import quality_item_set, quality_settings_update
from tests.factories import api_client, breakdown_project, expected_all, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def training(tmp_path):
    """Two training items (expected "X" everywhere, explained), pass mark 75%, three real items each."""
    work = breakdown_project(tmp_path, dialogues=5, annotators=2, k=2, assign=False, slug="qual")
    items = list(work.project.dialogues.order_by("position")[:2])
    for d in items:
        quality_item_set(
            project=work.project, dialogue_id=d.pk, kind="training", answers=expected_all(d, "X"),
            explanation="Every system turn here ignores the user.",
        )  # fmt: skip
    quality_settings_update(project=work.project, pass_mark=0.75)
    assignments_create_balanced(project=work.project)
    return work, {d.pk for d in items}


def split(work, person, training_ids):
    mine = Assignment.objects.filter(annotator=person, dialogue__project=work.project).select_related(
        "dialogue__project", "annotator"
    )
    return [a for a in mine if a.dialogue_id in training_ids], [a for a in mine if a.dialogue_id not in training_ids]


def can_open(client, api, item) -> list[int]:
    """Status codes of the page, the page's save (the API with its session), the API's detail and the
    API's save of ``item``."""
    return [
        client.get(f"/items/{item.pk}/").status_code,
        client.post(f"/api/assignments/{item.pk}/judgements/", {"judgements": []}, "application/json").status_code,
        api.get(f"/api/assignments/{item.pk}/").status_code,
        api.post(f"/api/assignments/{item.pk}/judgements/", {"judgements": []}, format="json").status_code,
    ]


def test_below_the_pass_mark_real_items_stay_closed_on_pages_and_api(training, client):
    work, training_ids = training
    person = work.annotators[0]
    client.force_login(person)
    api = api_client(person)
    train, real = split(work, person, training_ids)
    assert len(train) == 2 and len(real) == 3
    # before training: the queue shows the training items only, every real item answers 403
    queue = client.get("/projects/qual/queue/")
    assert b"training-items" in queue.content and all(
        a.dialogue.external_id.encode() not in queue.content for a in real
    )
    assert can_open(client, api, real[0]) == [403, 403, 403, 403]
    assert client.get(f"/items/{train[0].pk}/").status_code == 200
    # the feedback hides the expected answers until the item is submitted
    assert api.get(f"/api/assignments/{train[0].pk}/feedback/").json()["answers"] == []
    # when the annotator submits both training items with half the answers wrong (50% < 75%)
    for a in train:
        submit(a, lambda a, k, u: "X" if u == 2 else "O")
    response = client.get(f"/items/{train[0].pk}/feedback/")
    # then the feedback shows the expected answers beside their own, and the lead's explanation
    page = response.content.decode()
    assert "Every system turn here ignores the user." in page and "✗ different" in page and "✓ right" in page
    feedback = api.get(f"/api/assignments/{train[0].pk}/feedback/").json()
    assert {(r["unit"], r["given"], r["expected"], r["correct"]) for r in feedback["answers"]} == {
        (2, "X", "X", True),
        (4, "O", "X", False),
    }
    assert feedback["state"] == "failed" and feedback["score"] == 0.5
    # and the real items stay closed, page and API
    assert can_open(client, api, real[0]) == [403, 403, 403, 403]
    listed = api_client(work.lead).get("/api/projects/qual/quality/qualification/").json()
    assert {r["annotator"]: r["state"] for r in listed}[person.username] == "failed"
    # when the lead lets them in by hand (page), the items open
    lead = client.__class__()
    lead.force_login(work.lead)
    assert (
        lead.post("/projects/qual/quality/admit/", {"annotator": person.username, "note": "spoke"}).status_code == 302
    )
    assert can_open(client, api, real[0])[0] == 200 and can_open(client, api, real[0])[2] == 200


def test_reaching_the_pass_mark_opens_the_queue(training, client):
    work, training_ids = training
    person = work.annotators[1]
    client.force_login(person)
    train, real = split(work, person, training_ids)
    submit(train[0], lambda a, k, u: "X")
    assert client.get(f"/items/{real[0].pk}/").status_code == 403  # one training item still to do
    response = client.post(f"/items/{train[1].pk}/submit/", {"j:breakdown:2": "X", "j:breakdown:4": "X"})
    # submitting a training item leads to its feedback
    assert response.status_code == 302 and response["Location"].endswith(f"/items/{train[1].pk}/feedback/")
    assert client.get(f"/items/{real[0].pk}/").status_code == 200
    assert Qualification.objects.get(user=person).score == 1.0
    queue = client.get("/projects/qual/queue/").content.decode()
    assert 'data-state="passed"' in queue and real[0].dialogue.external_id in queue
    # the API's lead view agrees
    api = api_client(work.lead)
    rows = {r["annotator"]: r for r in api.get("/api/projects/qual/quality/qualification/").json()}
    assert rows[person.username]["state"] == "passed" and rows[work.annotators[0].username]["state"] == "training"
    admitted = api.post(
        "/api/projects/qual/quality/qualification/admit/", {"annotator": work.annotators[0].username}, format="json"
    )
    assert admitted.status_code == 200
    assert {r["annotator"]: r["state"] for r in admitted.json()}[work.annotators[0].username] == "admitted"
