"""The models' estimate is covered by the schedule's takeover as the statistics are: a queued estimate whose
heavy worker died is sent again by the next recomputation (a submission, *Recompute now*) once overdue, not
after the broker's visibility timeout; requests while one is queued and on time add nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from evaluation.models import StatisticsJob
from evaluation.services.jobs import statistics_job_run
from tests.factories import breakdown_project, submit_all

pytestmark = pytest.mark.django_db

ESTIMATE = "evaluation.tasks.estimate_model_reliability"


@pytest.fixture
def sent(monkeypatch):
    """The estimates handed to the broker (recorded instead of sent), as with workers."""
    calls = []

    def record(name, *args, countdown=None, **_options):
        calls.append((name, countdown))
        return True

    monkeypatch.setattr("config.enqueue.task_send", record)
    return calls


def estimates(sent) -> int:
    return sum(name == ESTIMATE for name, _countdown in sent)


def test_recompute_now_takes_over_an_overdue_estimate(tmp_path, sent, settings, django_capture_on_commit_callbacks):
    settings.MODEL_ESTIMATE_DELAY_SECONDS = 3
    settings.STATISTICS_TAKEOVER_GRACE_SECONDS = 60
    work = breakdown_project(tmp_path, dialogues=4, annotators=2, k=2)
    for person in work.annotators:
        submit_all(person, work.project, lambda a, k, u: "O")
    project_id = work.project.pk

    def recompute_now() -> None:  # what the worker runs for a submission or the lead's *Recompute now*
        with django_capture_on_commit_callbacks(execute=True):
            stored = statistics_job_run(project_id=project_id)
        assert stored.payload["reliability"]["models_pending"] is True

    recompute_now()
    assert estimates(sent) == 1
    job = StatisticsJob.objects.get(project_id=project_id)
    assert job.models_pending and job.models_due_at > timezone.now()
    # the statistics are unchanged and the estimate is queued on time: nothing more is sent
    recompute_now()
    StatisticsJob.objects.filter(pk=job.pk).update(models_due_at=timezone.now() - timedelta(seconds=30))
    recompute_now()  # due, but within the grace period: a busy heavy worker may still start it
    assert estimates(sent) == 1
    # overdue: the heavy worker holding it was killed; the lead's *Recompute now* sends it again
    StatisticsJob.objects.filter(pk=job.pk).update(models_due_at=timezone.now() - timedelta(seconds=61))
    recompute_now()
    assert estimates(sent) == 2 and sent[-1] == (ESTIMATE, 3)
    job.refresh_from_db()
    assert job.models_pending and job.models_due_at > timezone.now()
    recompute_now()
    assert estimates(sent) == 2
    # killed while estimating (no longer queued, never finished): the next recomputation asks again
    StatisticsJob.objects.filter(pk=job.pk).update(models_pending=False)
    recompute_now()
    assert estimates(sent) == 3
