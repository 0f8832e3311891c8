"""Requests coalesce while a recomputation is pending, and take it over once it is overdue."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from evaluation.models import StatisticsJob
from evaluation.services.schedule import statistics_request, statistics_request_on_commit

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(
        reason=(
            "the pending recomputation is noted with a plain UPDATE comparing times, which SQLite stores as text "
            "(evaluation.services.schedule)"
        )
    ),
]


@pytest.fixture
def sent(monkeypatch):
    """The recomputations handed to the broker (recorded instead of sent)."""
    calls = []

    def record(name, *args, countdown=None, **_options):
        calls.append((name, args, countdown))
        return True

    monkeypatch.setattr("config.enqueue.task_send", record)
    return calls


def test_pending_requests_coalesce_until_overdue_then_one_takes_over(make_project, sent, settings):
    settings.STATISTICS_DEBOUNCE_SECONDS = 3
    settings.STATISTICS_TAKEOVER_GRACE_SECONDS = 60
    project = make_project("stc3", slug="co")
    assert statistics_request(project_id=project.pk)
    assert [statistics_request(project_id=project.pk) for _ in range(3)] == [False] * 3
    assert len(sent) == 1
    job = StatisticsJob.objects.get(project=project)
    assert job.pending and job.due_at is not None
    # due, but within the grace period: a busy worker may still start it
    StatisticsJob.objects.filter(pk=job.pk).update(due_at=timezone.now() - timedelta(seconds=30))
    assert not statistics_request(project_id=project.pk)
    # overdue: its worker died holding it; this request sends it again, and the next ones coalesce
    StatisticsJob.objects.filter(pk=job.pk).update(due_at=timezone.now() - timedelta(seconds=61))
    assert statistics_request(project_id=project.pk)
    assert not statistics_request(project_id=project.pk)
    assert len(sent) == 2 and sent[1][2] == 3
    job.refresh_from_db()
    assert job.pending and job.due_at > timezone.now()


@pytest.mark.sqlite_only
def test_on_sqlite_a_save_notes_the_pending_recomputation_in_its_own_transaction(
    make_project, sent, django_capture_on_commit_callbacks
):
    # given a pending recomputation
    project = make_project("stc3", slug="in-save")
    assert statistics_request(project_id=project.pk)
    before = StatisticsJob.objects.get(project=project).changed_at
    # when a save's transaction asks for the statistics
    with django_capture_on_commit_callbacks() as after_commit, transaction.atomic():
        statistics_request_on_commit(project_id=project.pk)
        # then the request is noted in it (one write with the save's, nothing left for after the commit)
        assert StatisticsJob.objects.get(project=project).changed_at > before
    assert after_commit == []
    # and a save that is rolled back takes its note with it
    noted = StatisticsJob.objects.get(project=project).changed_at
    with pytest.raises(RuntimeError), transaction.atomic():
        statistics_request_on_commit(project_id=project.pk)
        raise RuntimeError("the save failed")
    assert StatisticsJob.objects.get(project=project).changed_at == noted
    # and with no recomputation pending the request waits for the commit (it sends a task)
    StatisticsJob.objects.filter(project=project).update(pending=False)
    with django_capture_on_commit_callbacks(execute=True) as after_commit, transaction.atomic():
        statistics_request_on_commit(project_id=project.pk)
    assert len(after_commit) == 1 and len(sent) == 2
