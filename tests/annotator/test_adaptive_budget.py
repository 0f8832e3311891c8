"""Adaptive budgets through the services: simulated annotators with known answer distributions ask for items and
answer them; stable items stop early, contentious ones get more, caps and the budget hold, nobody gets an item
twice, and fixed K projects are untouched."""

from __future__ import annotations

import random

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from annotator.handout.selectors.adaptive import AT_MAXIMUM, OPEN, STABLE, adaptive_status, stop_reason
from annotator.handout.services.adaptive import adaptive_assign, adaptive_budget_update
from annotator.handout.services.bulk import assignments_create_balanced
from annotator.handout.services.next_item import next_item_hand_out
from annotator.models import AdaptiveBudget, Assignment, AssignmentStatus, Role
from annotator.services.projects import membership_add
from tests.factories import breakdown_project, submit, user_make

pytestmark = pytest.mark.django_db

CONTENTIOUS = {"bd00", "bd01", "bd02"}  # the other items: every annotator says "O"


def answer(rng: random.Random):
    """Items bd00-bd02 are contentious (each label equally likely), the others unanimous."""

    def choose(assignment, _key, _unit):
        return rng.choice("OTX") if assignment.dialogue.external_id in CONTENTIOUS else "O"

    return choose


def adaptive_project(tmp_path, *, annotators: int, budget: int = 0, max_k: int = 12, **rule):
    work = breakdown_project(tmp_path, dialogues=8, annotators=annotators, k=3, assign=False)
    adaptive_budget_update(project=work.project, adaptive=True, min_k=3, max_k=max_k, budget=budget, **rule)
    return work


def run_crowd(work, rng: random.Random, rounds: int = 40) -> int:
    """Each annotator in turn asks for an item and answers it, until nobody gets one; returns the hand-outs."""
    handed = 0
    for _round in range(rounds):
        given = 0
        for person in work.annotators:
            assignment = adaptive_assign(project=work.project, user=person)
            if assignment is not None:
                submit(assignment, answer(rng))
                given += 1
        handed += given
        if not given:
            break
    return handed


def test_stable_items_stop_early_contentious_get_more(tmp_path):
    """(The interval rule: under the expected-change rule a unanimous item's next label, if it differed, would
    move the gold as much as a split item's, so unanimity does not settle sooner; see the stop rule's test.)"""
    work = adaptive_project(tmp_path, annotators=12, stop_rule="interval_width", threshold=0.4)
    handed = run_crowd(work, random.Random(1))
    status = adaptive_status(work.project)
    labels = {item.external_id: item.labels for item in status.items}
    states = {item.external_id: item.state for item in status.items}
    unanimous = [labels[e] for e in labels if e not in CONTENTIOUS]
    contentious = [labels[e] for e in CONTENTIOUS]
    assert handed == sum(labels.values()) == status.spent
    assert all(states[e] == STABLE for e in labels if e not in CONTENTIOUS)
    assert max(unanimous) < min(contentious), (unanimous, contentious)
    assert max(unanimous) < 12 and all(n >= 3 for n in unanimous)  # stopped early, never under the minimum
    assert all(states[e] in (STABLE, AT_MAXIMUM) for e in CONTENTIOUS)
    assert all(n <= 12 for n in contentious)
    for person in work.annotators:  # nobody got an item twice
        mine = list(Assignment.objects.filter(annotator=person).values_list("dialogue_id", flat=True))
        assert len(mine) == len(set(mine))
    reasons = {item.external_id: stop_reason(item, status) for item in status.items}
    assert set(reasons.values()) <= {"stable", "at_maximum"}


@pytest.mark.parametrize(("kind", "threshold"), [("interval_width", 0.45), ("expected_change", 0.008)])
def test_stop_rule_matches_the_library_on_the_collected_counts(tmp_path, kind, threshold):
    """The item's state is the library's statistic on the counts read back from the judgements one by one."""
    from scoring.adaptive import expected_gold_change, interval_width

    work = adaptive_project(tmp_path, annotators=10, stop_rule=kind, threshold=threshold)
    run_crowd(work, random.Random(2))
    status = adaptive_status(work.project)
    for item in status.items:
        counts = []
        for unit in (2, 4):  # the two system turns of a breakdown dialogue
            rows = Assignment.objects.filter(dialogue_id=item.dialogue_id, status=AssignmentStatus.SUBMITTED)
            values = [j.value for a in rows for j in a.judgements.filter(unit=unit)]
            counts.append([values.count(v) for v in "OTX"])
        counts = np.array(counts, dtype=float)
        assert counts.sum(axis=1).tolist() == [item.labels, item.labels]
        if kind == "interval_width":
            statistic = interval_width(counts, 0.95, 0.5)
        else:
            statistic = expected_gold_change(counts, 0.5)
        settled = item.labels >= 3 and bool((statistic < threshold).all())
        assert (item.state == STABLE) == settled, (item, statistic)
        if item.state == OPEN:
            assert item.held == 10 or item.labels == 0  # open items were only left when nobody could take them


def test_max_k_and_budget_are_never_overshot(tmp_path):
    work = adaptive_project(tmp_path, annotators=6, budget=20, max_k=4, threshold=0.0)  # nothing ever stable
    handed = run_crowd(work, random.Random(3))
    status = adaptive_status(work.project)
    assert handed == 20 == status.spent and status.left == 0 and status.budget_spent
    assert max(item.held for item in status.items) <= 4
    assert adaptive_assign(project=work.project, user=work.annotators[0]) is None
    assert {stop_reason(i, status) for i in status.items if i.state == OPEN} <= {"budget_spent"}


def test_one_item_at_a_time_and_the_queue_hands_the_next(tmp_path):
    work = adaptive_project(tmp_path, annotators=3)
    person = work.annotators[0]
    first = next_item_hand_out(project=work.project, user=person)
    assert first is not None
    assert next_item_hand_out(project=work.project, user=person) is None  # the first is theirs to finish
    submit(first, answer(random.Random(0)))
    second = next_item_hand_out(project=work.project, user=person)
    assert second is not None and second.dialogue_id != first.dialogue_id
    assert second.queue_rank == first.queue_rank + 1


def test_the_lead_assignment_run_hands_out_nothing_on_adaptive_projects(tmp_path):
    work = adaptive_project(tmp_path, annotators=3)
    report = assignments_create_balanced(project=work.project, seed=0)
    assert report.created == 0 and not Assignment.objects.filter(dialogue__project=work.project).exists()


def test_fixed_k_is_the_default_and_behaves_as_before(tmp_path):
    work = breakdown_project(tmp_path, dialogues=5, annotators=3, k=2)
    assert not AdaptiveBudget.objects.filter(project=work.project).exists()
    held = Assignment.objects.filter(dialogue__project=work.project)
    assert held.count() == 10
    assert next_item_hand_out(project=work.project, user=work.annotators[0]) is None
    assert held.count() == 10


def test_settings_are_validated(tmp_path):
    work = breakdown_project(tmp_path, dialogues=2, annotators=1, k=1, assign=False)
    with pytest.raises(ValidationError):
        adaptive_budget_update(project=work.project, adaptive=True, min_k=5, max_k=3)
    with pytest.raises(ValidationError):
        adaptive_budget_update(project=work.project, adaptive=True, stop_rule="coin")
    late = user_make("late")
    membership_add(project=work.project, user=late, role=Role.ANNOTATOR)
    assert adaptive_budget_update(project=work.project, adaptive=False).adaptive is False


def test_a_crowd_study_on_an_adaptive_project_fills_its_quotas(tmp_path):
    """Participants get full sets of the items worth most, never an item twice, within each item's maximum; once
    every item is stable or at its maximum the study is full."""
    from annotator.studies.services import StudyError, participant_arrive, participant_start, study_create

    work = adaptive_project(tmp_path, annotators=0, max_k=10, stop_rule="interval_width", threshold=0.4)
    study = study_create(project=work.project, name="crowd", items_per_participant=3)
    rng = random.Random(4)
    quotas = []
    for i in range(60):
        try:
            participant = participant_arrive(study=study, external_id=f"p{i}")
        except StudyError as exc:
            assert exc.reason == StudyError.FULL
            break
        participant = participant_start(participant_id=participant.pk)
        mine = list(Assignment.objects.filter(annotator=participant.user))
        quotas.append(len(mine))
        assert len({a.dialogue_id for a in mine}) == len(mine)
        for assignment in mine:
            submit(assignment, answer(rng))
    else:
        pytest.fail("the study never filled")
    status = adaptive_status(work.project)
    assert all(item.state in (STABLE, AT_MAXIMUM) for item in status.items)
    assert max(item.held for item in status.items) <= 10
    assert quotas[0] == 3 and quotas.count(3) >= len(quotas) - 2  # full sets while enough items were open
    assert sum(quotas) == status.spent
    contentious = [i.labels for i in status.items if i.external_id in CONTENTIOUS]
    unanimous = [i.labels for i in status.items if i.external_id not in CONTENTIOUS]
    assert min(contentious) > max(unanimous)
