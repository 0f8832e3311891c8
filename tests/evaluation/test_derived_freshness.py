"""One notion of freshness (``evaluation.services.freshness``): the statistics, the live figures, the models'
estimate and the runs' scores are each current after the workers, each stale since the change after one, and
the API's ``freshness`` answers exactly what the pages render. In Chromium:
``tests/browser/test_freshness_parts.py``."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import timezone

from evaluation.models import StatisticsJob
from evaluation.services.freshness import freshness_json, project_freshness, result_freshness
from evaluation.services.live_rebuild import live_state_rebuild
from evaluation.services.model_reliability import model_reliability_recompute
from evaluation.services.statistics import statistics_recompute
from tests.evaluation.test_run_freshness import board, busy_workers, exclude  # noqa: F401 (fixtures)
from tests.factories import api_client

pytestmark = pytest.mark.django_db(transaction=True)


def worked(project) -> None:
    """What the workers do after the judgements changed: the statistics, the models, the live state's rebuild."""
    statistics_recompute(project_id=project.pk)
    model_reliability_recompute(project_id=project.pk)
    live_state_rebuild(project_id=project.pk)


def test_every_part_is_current_after_the_workers_and_stale_since_the_change_after(board, busy_workers):  # noqa: F811
    project = board.project
    worked(project)
    parts = {p.part: p for p in project_freshness(project=project)}
    assert list(parts) == ["statistics", "live", "models", "runs"]
    assert all(p.current and p.stale_since is None and p.reason == "" for p in parts.values()), parts
    assert all(p.computed_at is not None for p in parts.values())
    # when the lead excludes an annotator, and the workers have not run yet
    before = timezone.now()
    exclude(board)
    requested = StatisticsJob.objects.get(project=project).requested_at
    parts = {p.part: p for p in project_freshness(project=project)}
    # then every part is stale, since the exclusion's request, with its reason, and being brought up to date
    assert not any(p.current for p in parts.values()), parts
    assert parts["statistics"].stale_since == requested >= before
    assert parts["models"].stale_since == requested and parts["runs"].stale_since == requested
    assert parts["live"].stale_since >= before and parts["live"].reason == "an annotator was excluded"
    assert parts["runs"].reason == "3 runs were scored against an earlier gold"
    assert parts["statistics"].pending and parts["live"].pending and parts["runs"].pending


def test_the_api_answers_each_part_as_the_pages_render_it(board, busy_workers):  # noqa: F811
    project = board.project
    worked(project)
    exclude(board)
    answer = api_client(board.lead).get(f"/api/projects/{project.slug}/stats/").json()
    assert answer["freshness"] == freshness_json(project_freshness(project=project))
    assert [p["current"] for p in answer["freshness"].values()] == [False] * 4
    browser = Client()
    browser.force_login(board.lead)
    for url in (f"/projects/{project.slug}/dashboard/", f"/projects/{project.slug}/runs/"):
        html = browser.get(url).content.decode()
        for name, part in answer["freshness"].items():
            item = re.search(rf'<li data-freshness="{name}"[^>]*>', html).group(0)
            assert 'data-current="false"' in item and f'data-since="{part["stale_since"]}"' in item


def test_a_lead_jobs_result_says_when_it_was_computed_and_since_when_it_is_stale(board):  # noqa: F811
    project = board.project
    computed = timezone.now()
    assert result_freshness(project, computed_at=computed, stale=False, running=False).current
    assert result_freshness(project, computed_at=None, stale=False, running=True).reason == "not computed yet"
    exclude(board)
    stale = result_freshness(project, computed_at=computed, stale=True, running=False)
    assert not stale.current and stale.stale_since == StatisticsJob.objects.get(project=project).requested_at
