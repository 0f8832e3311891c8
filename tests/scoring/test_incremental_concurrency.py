"""Concurrent saves of the same units leave the statistics' state exact: many API submissions and a lead's
reopenings at once, on PostgreSQL with real row locks, every request in its own thread and connection."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from annotator.models import Assignment, AssignmentStatus
from annotator.selectors.judgement_arrays import project_judgements
from annotator.services.judgements.save import assignment_reopen
from scoring.agreement import fleiss_kappa, krippendorff_alpha_from_counts
from scoring.app.models import LiveAnnotatorCount, LiveUnitCounts
from scoring.app.services.incremental import live_figures
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
    return {
        (d, u): [int(x) for x in text.split(",")]
        for d, u, text in LiveUnitCounts.objects.filter(criterion__project=project).values_list(
            "dialogue_id", "unit", "counts"
        )
        if sum(int(x) for x in text.split(","))
    }


def test_many_concurrent_submissions_and_reopenings_of_the_same_units_leave_exact_counts(tmp_path):
    # given 2 dialogues each asked of 16 annotators, and the state built before any save
    work = breakdown_project(tmp_path, dialogues=2, annotators=16, k=16, slug="race")
    project = work.project
    live_figures(project)
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
