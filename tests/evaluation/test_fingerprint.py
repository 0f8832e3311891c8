"""The statistics' fingerprint (read from the submitted items) changes with every change of what counts."""

import pytest
from django.contrib.admin.sites import site
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from annotator.models import Judgement
from annotator.selectors.population import gold_judgements
from annotator.services.judgements import assignment_reopen, judgements_save
from evaluation.selectors.fingerprint import judgements_fingerprint
from tests.factories import first_allowed_values, project_with_work

pytestmark = pytest.mark.django_db


def submit(work, person, assignment, values=None):
    return judgements_save(
        assignment_id=assignment.pk, user=person, values=values or first_allowed_values(assignment), submit=True
    )


def test_reads_no_judgement_row():
    # given a project with a submitted item
    work = project_with_work("stc3", annotators=2)
    person = work.annotators[0]
    submit(work, person, work.assignments_of(person)[0])
    # when the fingerprint is read, then no query touches the judgements table
    with CaptureQueriesContext(connection) as context:
        judgements_fingerprint(work.project)
    assert not [q for q in context.captured_queries if "annotator_judgement" in q["sql"]]


def test_changes_with_submission_reopening_and_resubmission_but_not_with_drafts():
    work = project_with_work("stc3", annotators=2)
    person = work.annotators[0]
    first, second = work.assignments_of(person)[:2]
    empty, imported = judgements_fingerprint(work.project), gold_judgements(work.project).count()
    # a draft of an item that is not submitted does not count
    judgements_save(assignment_id=first.pk, user=person, values=first_allowed_values(first)[:1])
    assert judgements_fingerprint(work.project) == empty
    # a submission counts
    submit(work, person, first)
    submitted = judgements_fingerprint(work.project)
    assert submitted != empty and gold_judgements(work.project).count() == imported + len(first_allowed_values(first))
    # reopening takes it out: the judgements that count are those before the submission again
    assignment_reopen(assignment_id=first.pk)
    assert judgements_fingerprint(work.project) == empty
    # submitting it again (the same answers, later) changes it from both states
    submit(work, person, first)
    assert judgements_fingerprint(work.project) not in (submitted, empty)
    # another item's submission changes it again
    before = judgements_fingerprint(work.project)
    submit(work, person, second)
    assert judgements_fingerprint(work.project) != before


def test_an_edit_in_the_admin_changes_it():
    # given a submitted item
    work = project_with_work("dbdc", annotators=2)
    person = work.annotators[0]
    assignment = work.assignments_of(person)[0]
    submit(work, person, assignment)
    before = judgements_fingerprint(work.project)
    # when a staff user changes one of its judgements in the admin
    judgement = Judgement.objects.filter(assignment=assignment).first()
    judgement.value = "X" if judgement.value != "X" else "O"
    admin = site._registry[Judgement]
    request = RequestFactory().post("/admin/")
    admin.save_model(request, judgement, form=None, change=True)
    # then the fingerprint changed, and again when the admin deletes judgements
    after_edit = judgements_fingerprint(work.project)
    assert after_edit != before
    admin.delete_queryset(request, Judgement.objects.filter(pk=judgement.pk))
    assert judgements_fingerprint(work.project) not in (before, after_edit)
