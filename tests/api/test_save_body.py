"""The save body's plain reading (api/save_body.py) agrees with DRF's ``JudgementsIn`` whenever it
accepts a body (random bodies, near-plain and odd, through both); the answer is AssignmentOut's."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis import strategies as st

from annotator.models import Assignment, AssignmentStatus
from annotator.services.judgements import judgements_save
from api.save_body import judgements_in_plain, saved_out
from api.serializers import AssignmentOut, JudgementsIn
from tests.factories import first_allowed_values, project_with_work

texts = st.one_of(
    st.sampled_from(["A", "nugget", "CNUG", "", " A", "B ", "x" * 40, "x" * 41, "\x00", "中文", "0"]),
    st.text(max_size=45),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 90000), texts, st.floats(allow_nan=False))
judgement = st.dictionaries(
    st.sampled_from(["criterion", "unit", "value", "base", "other"]),
    st.one_of(texts, st.integers(-2, 50), st.none(), st.booleans()),
)
plainish_judgement = st.fixed_dictionaries(
    {"criterion": st.sampled_from(["A", "S", "E", "nugget"]), "unit": st.integers(0, 30), "value": texts},
    optional={"base": st.one_of(st.none(), texts)},
)
body = st.dictionaries(
    st.sampled_from(["judgements", "reordering", "reordering_base", "version", "submit", "seconds", "extra"]),
    st.one_of(
        scalars,
        st.lists(st.one_of(plainish_judgement, judgement), max_size=6),
        st.lists(st.one_of(st.integers(-2, 20), st.booleans(), texts), max_size=4),
    ),
)
plain_body = st.fixed_dictionaries(
    {"judgements": st.lists(plainish_judgement, max_size=8)},
    optional={
        "submit": st.booleans(),
        "seconds": st.integers(0, 86400),
        "version": st.one_of(st.none(), st.integers(0, 10**6)),
        "reordering": st.one_of(st.none(), st.lists(st.integers(0, 30), max_size=5)),
        "reordering_base": st.one_of(st.none(), st.lists(st.integers(0, 30), max_size=5)),
    },
)


def drf(data) -> dict | None:
    given = JudgementsIn(data=data)
    return json.loads(json.dumps(given.validated_data)) if given.is_valid() else None


@examples(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(body, plain_body))
def test_the_plain_reading_is_the_serializers_whenever_it_accepts(data):
    plain = judgements_in_plain(data)
    if plain is not None:
        assert plain == drf(data)


@examples(max_examples=200, deadline=None)
@given(plain_body)
def test_bodies_as_clients_send_them_take_the_plain_reading(data):
    """The bench's and the page's bodies (exact types, values without surrounding spaces) skip DRF."""
    for j in data["judgements"]:
        j["value"] = j["value"].replace("\x00", "")[:40].strip()
        if isinstance(j.get("base"), str):
            j["base"] = j["base"].replace("\x00", "")[:40].strip()
    if any(any("\ud800" <= c <= "\udfff" for c in str(j)) for j in data["judgements"]):
        return
    assert judgements_in_plain(data) == drf(data)


@pytest.mark.django_db
def test_the_saves_answer_is_assignment_outs(settings):
    """Fresh, drafted and submitted items, as the save returns them and as read back, in two time zones:
    the plain answer is the serializer's."""
    work = project_with_work("stc3", slug="save-body", annotators=1)
    annotator = work.annotators[0]
    fresh, drafted, submitted = Assignment.objects.filter(annotator=annotator).order_by("pk")[:3]
    saved = [
        judgements_save(assignment_id=drafted.pk, user=annotator, values=first_allowed_values(drafted)[:1], seconds=5),
        judgements_save(
            assignment_id=submitted.pk, user=annotator, values=first_allowed_values(submitted), seconds=9, submit=True
        ),
    ]
    assert saved[1].status == AssignmentStatus.SUBMITTED and saved[1].submitted_at is not None
    for zone in ("UTC", "Asia/Tokyo"):
        settings.TIME_ZONE = zone
        with timezone.override(zone):
            read = Assignment.objects.filter(pk__in=[fresh.pk, drafted.pk, submitted.pk]).select_related(
                "dialogue__project"
            )
            for a in [*saved, *read]:
                assert saved_out(a) == dict(AssignmentOut(a).data)
