"""The live statistics' rebuild through a real Celery worker on Redis and PostgreSQL: an import marks the state
stale and sends the rebuild (after its commit) to the worker, which brings the state up to date; the task sent twice
at once switches once, and the state is exact (what a full recomputation gives)."""

from __future__ import annotations

import pytest

from annotator.selectors.judgement_arrays import project_judgements
from evaluation.models import LiveState
from evaluation.services.incremental import live_figures
from evaluation.services.live_rebuild import live_state_rebuild
from evaluation.tasks import rebuild_live_statistics
from scoring.agreement import fleiss_kappa
from tests.evaluation.test_incremental_statistics import _log_file
from tests.factories import breakdown_project, submit_all
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.worker,
    pytest.mark.postgres(reason="a Celery worker in another process, through Redis, shares the database"),
    pytest.mark.django_db(transaction=True),
]


class Labels:
    """``_log_file``'s draws, made without Hypothesis: the labels in turn."""

    def __init__(self):
        self.i = 0

    def draw(self, _strategy):
        self.i += 1
        return "OTX"[self.i % 3]


def test_an_import_is_followed_by_the_workers_rebuild_and_the_task_is_safe_twice(celery_worker_process, tmp_path):
    from annotator.services.imports import dialogues_import

    work = breakdown_project(tmp_path, dialogues=3, annotators=3, k=3, slug="rebuild-worker")
    project = work.project
    for i, person in enumerate(work.annotators):
        submit_all(person, project, lambda a, key, unit, i=i: "OTX"[(i + unit) % 3])
    live_state_rebuild(project_id=project.pk)
    generation = LiveState.objects.get(project=project).generation
    # when an import adds judgements (the rebuild is sent to the worker once the import has committed)
    dialogues_import(project=project, paths=[_log_file(tmp_path, 1, "imp", ["i1", "i2"], Labels())], language="en")
    # then the worker brings the state up to date, and its figures are those of every judgement
    assert wait_for(lambda: LiveState.objects.get(project=project).stale_since is None, timeout=120)
    state = LiveState.objects.get(project=project)
    assert state.generation == generation + 1 and state.rebuilt_because == "import"
    counts = project_judgements(project)["breakdown"].counts()
    figures = live_figures(project)["criteria"]["breakdown"]
    assert figures["n_labels"] == counts.sum() and abs(figures["fleiss_kappa"] - fleiss_kappa(counts)) <= 1e-12
    # and the task sent twice at once (after another structural change) switches once
    from evaluation.services.incremental import live_state_stale

    live_state_stale(project_id=project.pk, reason="population")  # (autocommit: sends one at once as well)
    results = [rebuild_live_statistics.delay(project.pk) for _ in range(2)]
    switched = [r.get(timeout=120) for r in results]
    assert wait_for(lambda: LiveState.objects.get(project=project).stale_since is None, timeout=120)
    assert LiveState.objects.get(project=project).generation == generation + 2
    assert sum(switched) <= 1
