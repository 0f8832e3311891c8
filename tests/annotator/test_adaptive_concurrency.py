"""Adaptive hand-outs under load, on PostgreSQL with real row locks: many annotators (and study participants)
ask for items at once, each request in its own thread and database connection through the annotator's page,
all released together by a barrier; no item ever goes past its maximum and the budget is never overshot, on
distribution and on label gold."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from django.core.cache import cache
from django.db.models import Count
from django.test import Client
from django.urls import reverse

from annotator.handout.selectors.adaptive import STABLE, adaptive_status
from annotator.handout.services.adaptive import adaptive_budget_update
from annotator.models import Assignment, AssignmentStatus, Role
from annotator.services.projects import membership_add
from annotator.studies.services import participant_arrive, participant_start, study_create
from tests.annotator.test_study_concurrency import run_at_once
from tests.factories import breakdown_project, submit, user_make

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres(reason="row locks (select_for_update) between concurrent transactions"),
]


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()


def ask(user):
    """An annotator's browser: sign in and open the project's queue (which hands out their next item)."""

    def visit():
        client = Client()
        client.force_login(user)
        return client.get(reverse("queue", args=["conc"])).status_code

    return visit


def assert_no_overshoot(project, max_k: int) -> Counter:
    rows = Assignment.objects.filter(dialogue__project=project, dialogue__quality_item=None)
    held = Counter(rows.values_list("dialogue_id", flat=True))
    assert max(held.values()) <= max_k, held
    pairs = rows.values("annotator_id", "dialogue_id").annotate(n=Count("pk"))
    assert {row["n"] for row in pairs} == {1}  # nobody holds an item twice
    return held


def test_thirty_annotators_asking_at_once_never_overshoot_an_items_maximum(tmp_path):
    # given 6 items, at most 4 annotators each (nothing settles: threshold 0), 30 annotators
    work = breakdown_project(tmp_path, dialogues=6, annotators=30, k=3, assign=False, slug="conc")
    adaptive_budget_update(project=work.project, adaptive=True, min_k=2, max_k=4, threshold=0.0)
    from evaluation.models import LiveState
    from evaluation.services.live_rebuild import live_state_rebuild

    live_state_rebuild(project_id=work.project.pk)  # the rebuild the import asked the workers for
    assert LiveState.objects.get(project=work.project).built_at is not None  # hand-outs read the live counts
    rng = random.Random(0)
    for _round in range(3):
        # when all ask at once, then those with an item answer it
        results = run_at_once([ask(person) for person in work.annotators])
        assert results == [200] * 30, results
        for assignment in Assignment.objects.filter(dialogue__project=work.project).exclude(
            status=AssignmentStatus.SUBMITTED
        ):
            submit(assignment, lambda *_a: rng.choice("OTX"))
        # then no item holds more than its maximum, and nobody holds an item twice
        held = assert_no_overshoot(work.project, 4)
    # and every place was taken exactly once: 6 items x 4
    assert sum(held.values()) == 24 and set(held.values()) == {4}


def test_annotators_and_participants_at_once_stay_within_the_budget(tmp_path):
    # given 8 items, up to 10 annotators each, a total budget of 23 item-assignments
    work = breakdown_project(tmp_path, dialogues=8, annotators=20, k=3, assign=False, slug="conc")
    adaptive_budget_update(project=work.project, adaptive=True, min_k=3, max_k=10, budget=23, threshold=0.0)
    study = study_create(project=work.project, name="crowd", items_per_participant=2)
    participants = [participant_arrive(study=study, external_id=f"p{i}") for i in range(8)]
    # when 20 annotators and 8 participants (2 items each) ask at once
    starts = [lambda p=p: participant_start(participant_id=p.pk) for p in participants]
    results = run_at_once([ask(person) for person in work.annotators] + starts)
    assert all(not isinstance(r, Exception) for r in results), results
    # then exactly the budget was handed out, never more, within each item's maximum
    held = assert_no_overshoot(work.project, 10)
    assert sum(held.values()) == 23


def test_a_late_annotator_asking_alone_gets_nothing_once_items_are_full(tmp_path):
    work = breakdown_project(tmp_path, dialogues=2, annotators=3, k=2, assign=False, slug="conc")
    adaptive_budget_update(project=work.project, adaptive=True, min_k=1, max_k=1, threshold=0.0)
    run_at_once([ask(person) for person in work.annotators])
    assert_no_overshoot(work.project, 1)
    late = user_make("late")
    membership_add(project=work.project, user=late, role=Role.ANNOTATOR)
    assert run_at_once([ask(late)]) == [200]
    assert not Assignment.objects.filter(annotator=late).exists()


def test_label_gold_under_load_never_overshoots_and_stops_settled_items(tmp_path):
    # given 6 items whose gold is the majority label, at most 5 annotators each, 18 annotators who all say "O" on
    # three items and split on the others
    work = breakdown_project(tmp_path, dialogues=6, annotators=18, k=3, assign=False, slug="conc")
    adaptive_budget_update(
        project=work.project, adaptive=True, min_k=3, max_k=5, label_gold={"breakdown": 0.0}, delta=0.05
    )
    rng = random.Random(1)
    agreed = {"bd00", "bd01", "bd02"}
    for _round in range(3):
        # when all ask at once, then those with an item answer it
        results = run_at_once([ask(person) for person in work.annotators])
        assert results == [200] * 18, results
        for assignment in Assignment.objects.filter(dialogue__project=work.project).exclude(
            status=AssignmentStatus.SUBMITTED
        ):
            agree = assignment.dialogue.external_id in agreed
            submit(assignment, lambda *_a, agree=agree: "O" if agree else rng.choice("OTX"))
        # then no item holds more than its maximum, and nobody holds an item twice
        held = assert_no_overshoot(work.project, 5)
    # and the agreed items settled: a unanimous 3 of 5 cannot be overturned, so they stop at the minimum
    external = dict(work.project.dialogues.values_list("pk", "external_id"))
    status = adaptive_status(work.project)
    for item in status.items:
        if item.external_id in agreed:
            assert item.state == STABLE and held[item.dialogue_id] == 3, (external[item.dialogue_id], held)
    assert sum(held.values()) < 6 * 5
