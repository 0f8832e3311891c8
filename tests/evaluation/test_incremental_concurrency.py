"""Concurrent saves of the same units leave the statistics' state exact: many API submissions and a lead's
reopenings at once, on PostgreSQL with real row locks, every request in its own thread and connection; and
saves made while a background rebuild reads the judgements, and while it switches, are neither lost nor
counted twice."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from annotator.models import Assignment, AssignmentStatus
from annotator.selectors.judgement_arrays import project_judgements
from annotator.services.exclusions import annotator_exclude
from annotator.services.judgements.save import assignment_reopen
from evaluation.models import LiveAnnotatorCount, LiveState, LiveUnitCounts
from evaluation.services import incremental, live_rebuild
from evaluation.services.incremental import live_figures
from evaluation.services.live_rebuild import live_state_rebuild
from scoring.agreement import fleiss_kappa, krippendorff_alpha_from_counts
from tests.factories import api_client, breakdown_project, units_of

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres(reason="row locks between concurrent transactions on one unit's counts"),
]

LABELS = ("O", "T", "X")


def run_at_once(jobs) -> list:
    """Every job in its own thread (its own database connection), all released together."""
    barrier = threading.Barrier(len(jobs))
    results: list = [None] * len(jobs)

    def run(i, job):
        try:
            barrier.wait()
            results[i] = job()
        except Exception as exc:  # reported by the assertions
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    return results


def api_submit(assignment, i: int):
    def submit():
        body = {
            "judgements": [
                {"criterion": key, "unit": unit, "value": LABELS[(i + unit) % 3]}
                for key, unit in units_of(assignment.dialogue_id, assignment.dialogue.project)
            ],
            "submit": True,
        }
        client = api_client(assignment.annotator)
        return client.post(f"/api/assignments/{assignment.pk}/judgements/", body, format="json").status_code

    return submit


def state_counts(project) -> dict:
    generation = LiveState.objects.get(project=project).generation
    return {
        (d, u): [int(x) for x in text.split(",")]
        for d, u, text in LiveUnitCounts.objects.filter(criterion__project=project, generation=generation).values_list(
            "dialogue_id", "unit", "counts"
        )
        if sum(int(x) for x in text.split(","))
    }


def assert_exact(project) -> None:
    """The state's unit counts, kappa, alpha and annotators' counters are those of a full recomputation."""
    data = project_judgements(project)["breakdown"]
    counts = data.counts()
    full = {(int(d), int(u)): row.tolist() for d, u, row in zip(data.unit_dialogue, data.unit_index, counts)}
    assert state_counts(project) == {k: v for k, v in full.items() if sum(v)}
    figures = live_figures(project)["criteria"]["breakdown"]
    assert abs(figures["fleiss_kappa"] - fleiss_kappa(counts)) <= 1e-12
    assert abs(figures["krippendorff_alpha"]["nominal"] - krippendorff_alpha_from_counts(counts)) <= 1e-12
    assert figures["n_labels"] == counts.sum()
    counted = dict(LiveAnnotatorCount.objects.filter(project=project, items__gt=0).values_list("annotator_id", "items"))
    submitted = {}
    for a in Assignment.objects.filter(dialogue__project=project, status=AssignmentStatus.SUBMITTED).exclude(
        annotator__in=project.exclusions.values("user")
    ):
        submitted[a.annotator_id] = submitted.get(a.annotator_id, 0) + 1
    assert counted == submitted


def test_many_concurrent_submissions_and_reopenings_of_the_same_units_leave_exact_counts(tmp_path):
    # given 2 dialogues each asked of 16 annotators, and the state built before any save
    work = breakdown_project(tmp_path, dialogues=2, annotators=16, k=16, slug="race")
    project = work.project
    live_state_rebuild(project_id=project.pk)
    items = list(Assignment.objects.filter(dialogue__project=project).select_related("dialogue__project", "annotator"))
    assert len(items) == 32
    # when 24 submit at once through the API, then 8 more submit while a lead reopens 8 submitted items
    first = run_at_once([api_submit(a, i) for i, a in enumerate(items[:24])])
    assert first == [200] * 24
    reopen = [lambda a=a: assignment_reopen(assignment_id=a.pk).status for a in items[:8]]
    second = run_at_once([api_submit(a, i + 24) for i, a in enumerate(items[24:])] + reopen)
    assert second[:8] == [200] * 8 and second[8:] == [AssignmentStatus.IN_PROGRESS] * 8
    # then every unit's counts, the sums and the annotators' counters are those of a full recomputation
    data = project_judgements(project)["breakdown"]
    counts = data.counts()
    full = {(int(d), int(u)): row.tolist() for d, u, row in zip(data.unit_dialogue, data.unit_index, counts)}
    assert state_counts(project) == full
    assert sum(sum(row) for row in full.values()) == 24 * len(units_of(items[0].dialogue_id, project))
    figures = live_figures(project)["criteria"]["breakdown"]
    assert abs(figures["fleiss_kappa"] - fleiss_kappa(counts)) <= 1e-12
    assert abs(figures["krippendorff_alpha"]["nominal"] - krippendorff_alpha_from_counts(counts)) <= 1e-12
    items_counted = dict(LiveAnnotatorCount.objects.filter(project=project).values_list("annotator_id", "items"))
    submitted = set(
        Assignment.objects.filter(dialogue__project=project, status=AssignmentStatus.SUBMITTED).values_list(
            "annotator_id", flat=True
        )
    )
    assert {a for a, n in items_counted.items() if n} == submitted and set(items_counted.values()) <= {0, 1, 2}


def test_saves_while_a_background_rebuild_reads_and_switches_are_neither_lost_nor_counted_twice(tmp_path, monkeypatch):
    # given 2 dialogues asked of 16 annotators, 8 items submitted, then an annotator excluded: the state is stale
    work = breakdown_project(tmp_path, dialogues=2, annotators=16, k=16, slug="rebuild-race")
    project = work.project
    live_state_rebuild(project_id=project.pk)
    items = list(
        Assignment.objects.filter(dialogue__project=project)
        .select_related("dialogue__project", "annotator")
        .order_by("annotator__username", "dialogue_id")
    )
    assert run_at_once([api_submit(a, i) for i, a in enumerate(items[:8])]) == [200] * 8
    monkeypatch.setattr(incremental, "live_state_rebuild_request", lambda project_id: True)  # this test runs it
    annotator_exclude(project=project, username=items[0].annotator.username, reason="test", excluded_by=work.lead)
    state = LiveState.objects.get(project=project)
    assert state.stale_since is not None and state.stale_because == "exclusion"
    # when a rebuild reads the judgements, 8 submissions and 4 reopenings are made at once before it writes,
    # and 8 more submissions race with its switch
    read_done, saves_done = threading.Event(), threading.Event()
    read = live_rebuild._read

    def read_then_wait(p, dialogue_ids=None):
        reading = read(p, dialogue_ids)
        if dialogue_ids is None:
            read_done.set()
            assert saves_done.wait(120)
        return reading

    monkeypatch.setattr(live_rebuild, "_read", read_then_wait)
    rebuilt: list = []
    rebuild = threading.Thread(
        target=lambda: (rebuilt.append(live_state_rebuild(project_id=project.pk)), connection.close())
    )
    rebuild.start()
    assert read_done.wait(120)
    reopen = [lambda a=a: assignment_reopen(assignment_id=a.pk).status for a in items[2:6]]
    during_read = run_at_once([api_submit(a, i + 8) for i, a in enumerate(items[8:16])] + reopen)
    assert during_read == [200] * 8 + [AssignmentStatus.IN_PROGRESS] * 4  # no save waited for the reading
    saves_done.set()
    during_switch = run_at_once([api_submit(a, i + 16) for i, a in enumerate(items[16:24])])
    rebuild.join(timeout=300)
    assert during_switch == [200] * 8 and rebuilt == [1]
    # then the state is fresh, for the new population, and exact
    state = LiveState.objects.get(project=project)
    assert state.stale_since is None and state.excluded == [items[0].annotator_id]
    assert_exact(project)
    assert not LiveUnitCounts.objects.filter(criterion__project=project).exclude(generation=state.generation).exists()
    # and the saves after the rebuild keep it exact
    assert run_at_once([api_submit(a, i) for i, a in enumerate(items[2:6])]) == [200] * 4
    assert_exact(project)
