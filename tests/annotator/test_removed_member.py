"""A member the lead removed reads and writes none of their assignments any more (pages and API);
what they submitted while active stays, and nothing they send afterwards reaches the gold data."""

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator import access
from annotator.exporters import export_gold
from annotator.models import AssignmentStatus, Judgement
from annotator.services.judgements import judgements_save
from tests.factories import first_allowed_values, project_with_work

pytestmark = pytest.mark.django_db

ENDED = "no longer a member of project"


@pytest.fixture
def removed():
    """An annotator who submitted one item, then was removed by the lead on the lead's page."""
    work = project_with_work("stc3", slug="rm", annotators=2)
    ann = work.annotators[0]
    done, *left = work.assignments_of(ann)
    judgements_save(assignment_id=done.pk, user=ann, values=first_allowed_values(done), submit=True)
    before = export_gold(project=work.project, fmt="distributions-json")
    lead = Client()
    lead.force_login(work.lead)
    assert lead.post(reverse("lead_member_remove", args=["rm", ann.pk])).status_code == 302
    return work, ann, done, left[0], before


def api_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def test_the_api_refuses_reads_and_writes_with_403_and_keeps_the_gold(removed):
    work, ann, done, open_item, before = removed
    api = api_for(ann)
    body = {
        "judgements": [
            {"criterion": v.criterion, "unit": v.unit, "value": v.value} for v in first_allowed_values(open_item)
        ],
        "submit": True,
    }

    for url, answer in [
        (
            f"/api/assignments/{open_item.pk}/judgements/",
            api.post(f"/api/assignments/{open_item.pk}/judgements/", body, format="json"),
        ),
        (
            f"/api/assignments/{open_item.pk}/judgements/ (draft)",
            api.post(f"/api/assignments/{open_item.pk}/judgements/", dict(body, submit=False), format="json"),
        ),
        (f"/api/assignments/{done.pk}/", api.get(f"/api/assignments/{done.pk}/")),
        ("/api/projects/rm/dialogues/", api.get("/api/projects/rm/dialogues/")),
    ]:
        assert answer.status_code == 403, (url, answer.content)
        assert ENDED in answer.json()["detail"], url
    assert api.get("/api/assignments/").json()["count"] == 0
    open_item.refresh_from_db()
    assert open_item.status == AssignmentStatus.PENDING and not Judgement.objects.filter(assignment=open_item).exists()
    # the work submitted while a member stays in the gold data, and nothing else entered it
    done.refresh_from_db()
    assert done.status == AssignmentStatus.SUBMITTED
    assert export_gold(project=work.project, fmt="distributions-json") == before


def test_the_pages_refuse_with_403_and_say_why(removed):
    work, ann, _done, open_item, before = removed
    client = Client()
    client.force_login(ann)
    page = client.get(reverse("annotate", args=[open_item.pk]))
    assert page.status_code == 403 and ENDED in page.content.decode()
    values = {f"j:{v.criterion}:{v.unit}": v.value for v in first_allowed_values(open_item)}
    submitted = client.post(reverse("submit", args=[open_item.pk]), values)
    assert submitted.status_code == 403 and ENDED in submitted.content.decode()
    body = {
        "judgements": [
            {"criterion": v.criterion, "unit": v.unit, "value": v.value} for v in first_allowed_values(open_item)
        ]
    }
    saved = client.post(reverse("api-judgements", args=[open_item.pk]), body, content_type="application/json")
    assert saved.status_code == 403 and saved.json()["reason"] == "removed" and ENDED in saved.json()["detail"]
    state = client.get(reverse("draft", args=[open_item.pk]), HTTP_ACCEPT="application/json")
    assert state.status_code == 403 and ENDED in state.json()["problems"][0]
    queue = client.get(reverse("queue", args=["rm"]))
    assert queue.status_code == 403 and ENDED in queue.content.decode()
    assert not Judgement.objects.filter(assignment=open_item).exists()
    assert export_gold(project=work.project, fmt="distributions-json") == before


def test_the_save_itself_checks_the_membership(removed):
    _work, ann, _done, open_item, _before = removed
    with pytest.raises(access.MembershipEnded):
        judgements_save(assignment_id=open_item.pk, user=ann, values=first_allowed_values(open_item), submit=True)


def test_a_member_added_again_can_work_again(removed):
    work, ann, _done, open_item, _before = removed
    from annotator.services.projects import membership_add

    membership_add(project=work.project, user=ann, role="annotator")
    saved = judgements_save(assignment_id=open_item.pk, user=ann, values=first_allowed_values(open_item), submit=True)
    assert saved.status == AssignmentStatus.SUBMITTED


def test_someone_who_never_was_a_member_still_learns_nothing(removed):
    work, _ann, done, _open_item, _before = removed
    stranger = api_for(work.annotators[1])
    assert stranger.get(f"/api/assignments/{done.pk}/").status_code == 404
