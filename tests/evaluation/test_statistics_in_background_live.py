"""On the embedded default (``runserver`` and its worker on the filesystem broker, as ``scripts/serve.sh`` runs them)
a submission is answered before the statistics are recomputed: the recomputation it asks for runs on the worker
after the debounce. (It once ran inside the submission's request: a second on the demo, minutes on a project of
STC-3's size.)"""

from __future__ import annotations

import pytest
from django.conf import settings
from numpy.random import default_rng as rng

from annotator.models import Assignment, AssignmentStatus
from annotator.selectors.population import gold_judgements
from evaluation.models import ProjectStatistics, StatisticsJob
from evaluation.services.jobs import statistics_job_run
from tests.conftest import database_url
from tests.factories import breakdown_project, random_values, submit_all
from tests.live_servers import running, start_runserver
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.both_databases(
        reason=(
            "the embedded default as serve.sh runs it: the recomputation on its worker beside the server, SQLite's one "
            "writer"
        )
    ),
]


def test_a_submission_is_answered_before_the_recomputation_which_follows_on_the_worker(tmp_path):
    # given a project with statistics, one annotator's item still open, served as serve.sh serves it
    work = breakdown_project(tmp_path, dialogues=3, annotators=2, k=2, slug="in-background")
    project, first, second = work.project, work.annotators[0], work.annotators[1]
    submit_all(first, project, lambda a, key, unit: "O")
    statistics_job_run(project_id=project.pk)  # what a worker runs for the recomputation these submissions asked for
    before = ProjectStatistics.objects.get(project=project).computed_at
    item = Assignment.objects.filter(annotator=second, dialogue__project=project).first()
    values = [{"criterion": g.criterion, "unit": g.unit, "value": g.value} for g in random_values(item, rng(0))]
    with running(start_runserver(database_url(), tmp_path / "runserver.log", with_worker=True)) as server:
        # when the second annotator submits an item through the API
        answer = server.token_session(second).post(
            f"{server.url}/api/assignments/{item.pk}/judgements/",
            json={"judgements": values, "submit": True, "seconds": 5},
            timeout=120,
        )
        assert answer.status_code == 200, answer.text[:500]
        # then the submission is saved and answered while its recomputation waits (the debounce), not done yet
        assert Assignment.objects.get(pk=item.pk).status == AssignmentStatus.SUBMITTED
        assert settings.STATISTICS_DEBOUNCE_SECONDS >= 1
        assert ProjectStatistics.objects.get(project=project).computed_at == before
        assert StatisticsJob.objects.get(project=project).pending
        # and the worker recomputes them after the debounce, counting the submission
        assert wait_for(lambda: ProjectStatistics.objects.get(project=project).computed_at > before, timeout=60)
        assert not StatisticsJob.objects.get(project=project).pending
        assert ProjectStatistics.objects.get(project=project).n_judgements == gold_judgements(project).count()
