"""Presets create their criteria with the exact scales of design.md section 2."""

import pytest

from annotator.models import Criterion
from annotator.presets import PRESETS

pytestmark = pytest.mark.django_db


def scale(project, key, speaker=None):
    return Criterion.objects.get(project=project, key=key).allowed_values(speaker)


def test_dch1(make_project):
    p = make_project("dch1")
    assert list(p.criteria.values_list("key", flat=True)) == ["TS", "TA", "CS", "HA", "CA", "nugget"]
    for key in ("TS", "TA", "HA", "CA"):
        assert scale(p, key) == ["-1", "0", "1"]
    assert scale(p, "CS") == ["-2", "-1", "0", "1", "2"]
    assert scale(p, "nugget", "customer") == ["CNUG0", "CNUG", "CNUG*", "NaN"]
    assert scale(p, "nugget", "helpdesk") == ["HNUG", "HNUG*", "NaN"]
    assert Criterion.objects.get(project=p, key="nugget").unit == "post"


def test_stc3(make_project):
    p = make_project("stc3")
    for key in ("A", "S", "E"):
        assert scale(p, key) == ["-2", "-1", "0", "1", "2"]
    nugget = Criterion.objects.get(project=p, key="nugget")
    assert nugget.unit == "turn" and nugget.speakers == ["customer", "helpdesk"]
    assert scale(p, "nugget", "customer") == ["CNUG0", "CNUG", "CNUG*", "CNaN"]
    assert scale(p, "nugget", "helpdesk") == ["HNUG", "HNUG*", "HNaN"]


def test_coherence_dbdc_nlpcc(make_project):
    c = make_project("coherence")
    assert scale(c, "overall") == [str(i) for i in range(1, 8)]
    assert scale(c, "turn_coherence") == [str(i) for i in range(1, 6)]
    assert Criterion.objects.get(project=c, key="turn_coherence").level == "interval"
    assert PRESETS["coherence"].reordering
    d = make_project("dbdc")
    breakdown = Criterion.objects.get(project=d, key="breakdown")
    assert (breakdown.unit, breakdown.speaker, breakdown.allowed_values()) == ("system_turn", "S", ["O", "T", "X"])
    assert [v["label"].split(":")[0] for v in breakdown.values] == ["NB", "PB", "B"]
    n = make_project("nlpcc")
    assert n.criteria.count() == 10
    aspects = PRESETS["nlpcc"].aspects
    assert sorted(set(aspects.values())) == [
        "content_expression",
        "contextual_association",
        "emotional_expression",
        "syntax",
        "topic_divergence",
    ]
    assert all(list(aspects.values()).count(a) == 2 for a in set(aspects.values()) - {"syntax"})


def test_project_create_rejects_unknown_preset_and_duplicate_slug(make_project):
    from annotator.services.projects import project_create

    make_project("dbdc", slug="taken")
    with pytest.raises(ValueError, match="unknown preset"):
        project_create(slug="x", preset="nope")
    with pytest.raises(ValueError, match="already exists"):
        project_create(slug="taken", preset="dbdc")
