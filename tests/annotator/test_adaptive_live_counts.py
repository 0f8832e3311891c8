"""The adaptive hand-out reads the live per-unit counts (``evaluation.selectors.live_counts``) when they are exact,
and counts the judgements otherwise: both give the same item states and priorities, to the last bit, and the same
items are handed out in the same order, through submissions, reopenings, an exclusion (stale: counted) and the
rebuild after it (live again)."""

from __future__ import annotations

import random

import pytest

from annotator import events
from annotator.handout.selectors.adaptive import adaptive_status
from annotator.handout.services.adaptive import adaptive_assign, adaptive_budget_update
from annotator.services.exclusions import annotator_exclude
from annotator.services.judgements.save import assignment_reopen
from evaluation.services.live_rebuild import live_state_rebuild
from tests.factories import breakdown_project, submit

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(
        reason=("the live per-unit counts are read with a statement per database (evaluation.selectors.live_counts)")
    ),
]


def counted_status(project, monkeypatch):
    """``adaptive_status`` as it is without live counts (the judgements counted)."""
    with monkeypatch.context() as patch:
        patch.setattr(events, "live_unit_counts", lambda **_kwargs: None)
        return adaptive_status(project)


def crowd(tmp_path, slug: str, monkeypatch, *, live: bool) -> tuple[list[tuple[int, str]], dict]:
    """Annotators in turn ask for an item and answer it (one reopens and answers again, one is excluded half way);
    returns the hand-outs in order and how the statuses were read."""
    work = breakdown_project(tmp_path, dialogues=6, annotators=10, k=3, assign=False, slug=slug)
    project = work.project
    adaptive_budget_update(
        project=project, adaptive=True, min_k=2, max_k=7, stop_rule="expected_change", threshold=0.02
    )
    if live:
        live_state_rebuild(project_id=project.pk)
    rng = random.Random(7)
    read = {"live": 0, "counted": 0}
    real = events.live_unit_counts

    def spy(**kwargs):
        found = real(**kwargs)
        read["live" if found is not None else "counted"] += 1
        return found

    monkeypatch.setattr(events, "live_unit_counts", spy)
    handed = []
    for turn in range(40):
        person_index = turn % len(work.annotators)
        person = work.annotators[person_index]
        if turn == 20:
            annotator_exclude(project=project, username=work.annotators[0].username, reason="t", excluded_by=work.lead)
        if turn == 26 and live:
            live_state_rebuild(project_id=project.pk)
        if live:
            status = adaptive_status(project)
            assert status.items == counted_status(project, monkeypatch).items  # states, labels, held, priorities
        assignment = adaptive_assign(project=project, user=person)
        if assignment is None:
            continue
        handed.append((person_index, assignment.dialogue.external_id))
        submit(assignment, lambda a, _key, unit: rng.choice("OTX") if a.dialogue.position % 2 else "O")
        if turn == 12:
            assignment_reopen(assignment_id=assignment.pk)
            submit(assignment, lambda _a, _key, _unit: "X")
    return handed, read


def test_live_and_counted_hand_outs_are_the_same(tmp_path, monkeypatch):
    counted, read_counted = crowd(tmp_path, "adaptive-counted", monkeypatch, live=False)
    monkeypatch.undo()
    live, read_live = crowd(tmp_path, "adaptive-live", monkeypatch, live=True)
    assert len(live) >= 25
    assert live == counted
    assert read_counted["live"] == 0
    assert read_live["live"] > 20 and read_live["counted"] > 0  # stale between the exclusion and the rebuild
