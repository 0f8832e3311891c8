"""A task sent through Redis to a real worker process computes and stores statistics."""

import json

import pytest

from annotator.services.imports import dialogues_import
from evaluation.models import ModelReliability, ProjectStatistics
from evaluation.services.incremental import statistics_with_running_figures
from evaluation.services.statistics import project_statistics
from evaluation.tasks import recompute_statistics
from tests.fixtures.collections import stc3_dialogues, write_json
from tests.waiting import wait_for


@pytest.mark.worker
@pytest.mark.postgres(reason="a Celery worker in another process, through Redis, shares the database")
def test_recompute_through_a_real_worker(celery_worker_process, transactional_db, make_project, tmp_path):
    # given a project with imported judgements
    project = make_project("stc3")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    # when the task goes through the broker to the worker process
    result = recompute_statistics.delay(project.pk)
    answer = result.get(timeout=60)
    # then the worker stored the statistics it computed from the database, and asked the heavy queue for the
    # latent-truth models' estimate, which the statistics carry once it is in
    stored = _when_the_models_are_in(project)
    assert answer["n_judgements"] == stored.n_judgements == 2 * 2 * 3 + 2 * 3 + 2 * 2
    assert stored.payload["reliability"]["models_pending"] is False
    assert ModelReliability.objects.get(project=project).fingerprint == stored.fingerprint
    # and it stored what is not additive; the readers add the running figures the live state keeps
    assert stored.payload == json.loads(json.dumps(project_statistics(project, running=False)))
    shown = statistics_with_running_figures(project, stored.payload)[0]
    assert json.loads(json.dumps(shown)) == json.loads(json.dumps(project_statistics(project)))
    assert result.successful() and result.task_id
    # and running it twice changes nothing (same fingerprint, same row)
    again = recompute_statistics.delay(project.pk).get(timeout=60)
    assert again["fingerprint"] == answer["fingerprint"]
    assert ProjectStatistics.objects.filter(project=project).count() == 1


def _when_the_models_are_in(project, seconds: float = 120) -> ProjectStatistics:
    def models_in() -> bool:
        return not ProjectStatistics.objects.get(project=project).payload["reliability"]["models_pending"]

    assert wait_for(models_in, seconds), "the heavy queue did not estimate the models in time"
    return ProjectStatistics.objects.get(project=project)


@pytest.mark.django_db
def test_the_recompute_delay_grows_with_the_last_recomputation(make_project, settings):
    from datetime import timedelta

    from django.utils import timezone

    from evaluation.models import StatisticsJob
    from evaluation.services.schedule import recompute_delay

    settings.STATISTICS_DEBOUNCE_SECONDS = 3
    settings.STATISTICS_DUTY_FACTOR = 10
    project = make_project("stc3")
    assert recompute_delay(project.pk) == 3  # never computed
    now = timezone.now()
    StatisticsJob.objects.create(
        project=project, started_at=now - timedelta(seconds=2), finished_at=now, last_duration=2.0
    )
    assert recompute_delay(project.pk) == pytest.approx(20)
    # while the next recomputation runs (a new start, the old finish) the delay still follows the last one
    StatisticsJob.objects.filter(project=project).update(started_at=now + timedelta(seconds=5))
    assert recompute_delay(project.pk) == pytest.approx(20)


@pytest.mark.django_db
def test_a_recomputation_records_how_long_it_took(make_project, tmp_path):
    from evaluation.models import StatisticsJob

    project = make_project("stc3")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    StatisticsJob.objects.create(project=project, pending=True)
    recompute_statistics.apply(args=[project.pk]).get()
    job = StatisticsJob.objects.get(project=project)
    assert not job.pending and job.recomputations == 1
    assert (
        job.last_duration == pytest.approx((job.finished_at - job.started_at).total_seconds()) and job.last_duration > 0
    )
