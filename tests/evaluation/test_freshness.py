"""The dashboard's "Up to date": constant time, and stale after every kind of write that changes what counts.

Recomputations are requested but not run here (the broker's side is replaced by a recorder), as
when the workers are busy: the page must say "Out of date" until a recomputation reads the change.
"""

import pytest
from django.contrib.admin.sites import site
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from annotator.models import Assignment, Judgement
from annotator.services.import_batches import import_batch_remove
from annotator.services.imports import dialogues_import
from annotator.services.judgements import judgements_save
from evaluation.selectors.dashboard import freshness
from evaluation.services import schedule
from evaluation.services.statistics import statistics_recompute
from tests.factories import first_allowed_values, project_with_work
from tests.fixtures.collections import stc3_dialogues, write_json

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def queued(monkeypatch):
    """Recomputations are sent to workers that have not run them yet."""
    sent = []
    monkeypatch.setattr(
        "config.enqueue.task_send", lambda name, *args, countdown=None, **_options: sent.append(args) or True
    )
    return sent


def submit(work, person, assignment):
    judgements_save(assignment_id=assignment.pk, user=person, values=first_allowed_values(assignment), submit=True)


def test_stale_after_a_submission_until_recomputed(queued):
    work = project_with_work("stc3", annotators=2)
    statistics_recompute(project_id=work.project.pk)
    state = freshness(project=work.project)
    assert state["up_to_date"] and state["new_items"] == 0 and not state["pending"]
    person = work.annotators[0]
    first, second = work.assignments_of(person)[:2]
    submit(work, person, first)
    submit(work, person, second)
    state = freshness(project=work.project)
    assert not state["up_to_date"] and state["new_items"] == 2 and state["pending"] and queued
    statistics_recompute(project_id=work.project.pk)
    assert freshness(project=work.project)["up_to_date"]


def test_a_request_that_changed_nothing_leaves_it_up_to_date(queued):
    """The lead's "Recompute now" with nothing new: the worker finds the fingerprint unchanged."""
    work = project_with_work("dbdc", annotators=2)
    stored = statistics_recompute(project_id=work.project.pk)
    schedule.statistics_request(project_id=work.project.pk)
    assert not freshness(project=work.project)["up_to_date"]
    again = statistics_recompute(project_id=work.project.pk)
    assert again.computed_at == stored.computed_at  # not recomputed ...
    assert freshness(project=work.project)["up_to_date"]  # ... but the request is covered


def test_stale_after_an_import_and_after_removing_a_batch(queued, tmp_path):
    work = project_with_work("stc3", annotators=2)
    statistics_recompute(project_id=work.project.pk)
    report = dialogues_import(project=work.project, paths=[write_json(tmp_path / "more.json", stc3_dialogues())])
    assert not freshness(project=work.project)["up_to_date"]  # an import on the command line requests nothing
    statistics_recompute(project_id=work.project.pk)
    assert freshness(project=work.project)["up_to_date"]
    import_batch_remove(project=work.project, batch_id=report.batch_id, user=work.lead)
    assert not freshness(project=work.project)["up_to_date"]


@pytest.mark.parametrize("change", ["judgement edited", "judgement deleted", "item deleted", "item reopened"])
def test_stale_after_an_edit_in_the_admin(queued, change):
    work = project_with_work("stc3", annotators=2)
    person = work.annotators[0]
    assignment = work.assignments_of(person)[0]
    submit(work, person, assignment)
    statistics_recompute(project_id=work.project.pk)
    assert freshness(project=work.project)["up_to_date"]
    request = RequestFactory().post("/admin/")
    judgement = Judgement.objects.filter(assignment=assignment).first()
    if change == "judgement edited":
        judgement.value = "2" if judgement.value != "2" else "1"
        site._registry[Judgement].save_model(request, judgement, form=None, change=True)
    elif change == "judgement deleted":
        site._registry[Judgement].delete_queryset(request, Judgement.objects.filter(pk=judgement.pk))
    elif change == "item deleted":
        site._registry[Assignment].delete_model(request, assignment)
    else:
        assignment.refresh_from_db()
        assignment.status = "pending"
        site._registry[Assignment].save_model(request, assignment, form=None, change=True)
    assert not freshness(project=work.project)["up_to_date"]


def test_reads_a_fixed_number_of_small_queries(queued):
    """Neither the judgements nor every item: the page costs the same at any size."""
    work = project_with_work("stc3", annotators=2)
    statistics_recompute(project_id=work.project.pk)
    person = work.annotators[0]
    submit(work, person, work.assignments_of(person)[0])
    with CaptureQueriesContext(connection) as context:
        state = freshness(project=work.project)
    assert not state["up_to_date"] and state["new_items"] == 1
    assert len(context.captured_queries) == 4
    assert not [q for q in context.captured_queries if "annotator_judgement" in q["sql"]]
    assert all("submitted_at" in q["sql"] for q in context.captured_queries if "annotator_assignment" in q["sql"])
