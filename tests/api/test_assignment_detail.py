"""GET /api/assignments/ID/ for every preset, with a saved draft of each judgement type."""

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.presets import PRESETS
from annotator.services.judgements import judgements_save
from tests.factories import first_allowed_values, project_with_work

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_detail_answers_with_the_saved_draft(preset):
    # given an annotator's item with a draft of every judgement type (and a reordering where the preset has one)
    work = project_with_work(preset, annotators=1)
    annotator = work.annotators[0]
    assignment = work.assignments_of(annotator)[0]
    values = first_allowed_values(assignment)
    reordering = None
    if PRESETS[preset].reordering:
        reordering = list(range(len(assignment.shown_order)))  # any valid order: the one shown (numbered as shown)
    judgements_save(assignment_id=assignment.pk, user=annotator, values=values, reordering=reordering, seconds=7)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=annotator).key}")

    # when the annotator reads it
    response = client.get(f"/api/assignments/{assignment.pk}/")

    # then it answers with every saved judgement, the reordering and the assignment's fields
    assert response.status_code == 200, response.content
    body = response.json()
    assert {(j["criterion"], j["unit"], j["value"]) for j in body["judgements"]} == {
        (v.criterion, v.unit, v.value) for v in values
    }
    assert body["reordering"] == reordering
    assert body["status"] == "in_progress" and body["seconds_spent"] == 7
    assert body["project"] == work.project.slug and body["dialogue"] == assignment.dialogue.external_id
    # and nobody else reads it
    lead = APIClient()
    lead.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=work.lead).key}")
    assert lead.get(f"/api/assignments/{assignment.pk}/").status_code == 404
