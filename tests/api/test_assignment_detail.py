"""GET /api/assignments/ID/ for every preset, with a saved draft of each judgement type."""

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.presets import PRESETS
from annotator.selectors.structure import dialogue_shape, project_criteria
from annotator.services.judgements import Given, judgements_save
from annotator.services.units import required_units, unit_rule
from tests.factories import project_with_work

pytestmark = pytest.mark.django_db


def first_allowed_values(assignment) -> list[Given]:
    """A value for every unit of every criterion: the first value allowed for the unit's speaker."""
    shape = dialogue_shape(assignment.dialogue_id)
    rule = unit_rule(assignment.dialogue.project.preset)
    given = []
    for criterion in project_criteria(assignment.dialogue.project_id).values():
        for unit in required_units(criterion, shape, rule=rule):
            if criterion.unit == "dialogue":
                speaker = None
            elif criterion.unit == "turn":
                speaker = shape.speakers[list(shape.blocks).index(unit)]
            else:
                speaker = shape.speakers[unit]
            allowed = criterion.allowed_values(speaker if criterion.speakers else None)
            given.append(Given(criterion.key, unit, allowed[0]))
    return given


@pytest.mark.sqlite
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_detail_answers_with_the_saved_draft(preset):
    # given an annotator's item with a draft of every judgement type (and a reordering where the preset has one)
    work = project_with_work(preset, annotators=1)
    annotator = work.annotators[0]
    assignment = work.assignments_of(annotator)[0]
    values = first_allowed_values(assignment)
    reordering = None
    if PRESETS[preset].reordering:
        reordering = list(assignment.shown_order)  # any valid order: the one shown is one
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
