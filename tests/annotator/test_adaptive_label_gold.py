"""Label gold through the services: a breakdown project whose gold is each system turn's majority label; simulated
annotators ask for items and answer them. Items everyone agrees on settle early, contentious ones take labels to
the maximum, and the states are the library's rule on the counts read from the judgements table."""

from __future__ import annotations

import random

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from annotator.handout.selectors.adaptive import (
    AT_MAXIMUM,
    STABLE,
    adaptive_gold_rows,
    adaptive_status,
    label_settlement,
    replay_figures,
)
from annotator.handout.services.adaptive import adaptive_budget_update
from annotator.models import AdaptiveBudget, AssignmentStatus, Judgement
from scoring.adaptive import LabelStopRule, fit_dirichlet_prior
from tests.annotator.test_adaptive_budget import CONTENTIOUS, run_crowd
from tests.factories import breakdown_project

pytestmark = pytest.mark.django_db


def label_project(tmp_path, *, annotators=12, max_k=12, delta=0.05, threshold=0.0, slug="lg"):
    work = breakdown_project(tmp_path, dialogues=8, annotators=annotators, k=3, assign=False, slug=slug)
    adaptive_budget_update(
        project=work.project, adaptive=True, min_k=3, max_k=max_k, label_gold={"breakdown": threshold}, delta=delta
    )
    return work


def counts_from_judgements(project) -> tuple[np.ndarray, list[str]]:
    """Per (dialogue, turn), the O/T/X counts of the submitted judgements, read straight from the table."""
    found: dict[tuple[str, int], np.ndarray] = {}
    rows = Judgement.objects.filter(
        assignment__dialogue__project=project, assignment__status=AssignmentStatus.SUBMITTED, criterion__key="breakdown"
    ).values_list("assignment__dialogue__external_id", "unit", "value")
    for external_id, unit, value in rows:
        found.setdefault((external_id, unit), np.zeros(3))["OTX".index(value)] += 1
    keys = sorted(found)
    return np.array([found[k] for k in keys]), [k[0] for k in keys]


def test_agreed_items_settle_early_and_contentious_ones_take_more(tmp_path):
    work = label_project(tmp_path)
    run_crowd(work, random.Random(3))
    status = adaptive_status(work.project)
    labels = {item.external_id: item.labels for item in status.items}
    states = {item.external_id: item.state for item in status.items}
    agreed = [e for e in labels if e not in CONTENTIOUS]
    assert all(states[e] == STABLE and labels[e] < 12 for e in agreed)
    assert max(labels[e] for e in agreed) < min(labels[e] for e in CONTENTIOUS)
    assert {states[e] for e in CONTENTIOUS} <= {STABLE, AT_MAXIMUM}
    # the states are the library's rule on the judgements table's counts, its prior fitted to them
    counts, dialogue_of = counts_from_judgements(work.project)
    rule = LabelStopRule(delta=0.05, min_k=3, max_k=12, alpha=tuple(fit_dirichlet_prior(counts)))
    assert status.rules["breakdown"].alpha == pytest.approx(rule.alpha)
    stable_units = rule.units_stable(counts)
    for external_id in labels:
        mine = [i for i, d in enumerate(dialogue_of) if d == external_id]
        assert (states[external_id] == STABLE) == bool(stable_units[mine].all()), external_id
    # every unit is settled at the end: stable, or at the maximum where its label is final
    settled = label_settlement(status)["breakdown"]
    assert settled.units == len(counts) == 16 and settled.settled == 16
    assert settled.expected_error is not None and 0 <= settled.expected_error <= 0.05
    assert settled.item_units.tolist() == [2] * 8


def test_a_smaller_delta_asks_for_more_labels(tmp_path):
    spent = {}
    for delta, slug in ((0.2, "loose"), (0.001, "strict")):
        work = label_project(tmp_path, delta=delta, slug=slug)
        run_crowd(work, random.Random(3))
        spent[delta] = adaptive_status(work.project).spent
    assert spent[0.001] > spent[0.2]


def test_label_gold_settings_are_validated_and_nothing_is_saved_on_a_refusal(tmp_path):
    work = breakdown_project(tmp_path, dialogues=2, annotators=1, k=1, assign=False, slug="lv")
    adaptive_budget_update(project=work.project, adaptive=True, min_k=2, max_k=6, label_gold={"breakdown": 0.5})
    before = AdaptiveBudget.objects.get(project=work.project)
    assert before.label_gold == {"breakdown": 0.5} and before.gold_of("breakdown") == "label"
    for bad, field in (
        ({"label_gold": {"nope": 0.0}}, "label_gold"),
        ({"label_gold": {"breakdown": 1.5}}, "label_gold"),
        ({"label_gold": ["breakdown"]}, "label_gold"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 0.9}, "delta"),
    ):
        with pytest.raises(ValidationError) as raised:
            adaptive_budget_update(project=work.project, **bad)
        assert field in raised.value.message_dict
    after = AdaptiveBudget.objects.get(project=work.project)
    assert (after.label_gold, after.delta) == ({"breakdown": 0.5}, 0.02)
    assert adaptive_gold_rows(work.project) == [
        {"key": "breakdown", "label": "Dialogue breakdown", "gold": "label", "threshold": 0.5, "one_scale": True}
    ]
    adaptive_budget_update(project=work.project, label_gold={})
    assert AdaptiveBudget.objects.get(project=work.project).gold_of("breakdown") == "distribution"


def test_a_criterion_with_a_scale_per_speaker_cannot_have_label_gold(make_project):
    project = make_project("stc3")
    keyed = {row["key"]: row for row in adaptive_gold_rows(project)}
    speakers = [key for key, row in keyed.items() if not row["one_scale"]]
    assert speakers and keyed["A"]["one_scale"]  # the nugget criterion: customer and helpdesk scales
    with pytest.raises(ValidationError, match="scale per speaker"):
        adaptive_budget_update(project=project, label_gold={speakers[0]: 0.0})
    adaptive_budget_update(project=project, label_gold={"A": 0.0})  # a dialogue-level rating has one scale


def test_the_committed_replay_figures_are_the_benchs_lines():
    figures = replay_figures()
    assert [line["collection"] for line in figures["distribution"]] == ["stc3-cn", "stc3-en", "dbdc3-en"]
    collections = [line["collection"] for line in figures["label"]]
    assert collections == [
        "dbdc3-en-dev", "dbdc3-en-eval", "dbdc3-ja-eval",
        "dbdc3-revised-en-dev", "dbdc3-revised-en-eval", "dbdc3-revised-ja-eval",
    ]  # fmt: skip
    for line in figures["label"]:
        assert line["gold"] == "label" and line["fixed"]["k"] == 30
        assert line["fixed"]["judgements"] == 30 * line["items"]
        judgements = line["adaptive"]["judgements"]["mean"]
        assert line["saving"]["mean"] == pytest.approx(1 - judgements / line["fixed"]["judgements"], abs=1e-4)
        error, agreement = line["adaptive"]["error_rate"], line["adaptive"]["agreement_with_full"]
        assert error["mean"] == pytest.approx(1 - agreement["mean"], abs=1e-6)
        assert error["mean"] <= line["delta"]
