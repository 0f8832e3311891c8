"""Every derived thing's freshness is shown alike on the pages and in the API (``evaluation.services.freshness``):
the dashboard and the leaderboard in Chromium render, part by part, what ``GET /api/projects/SLUG/stats/``
answers in ``freshness``, current after the workers and stale since the same moment after a change."""

from __future__ import annotations

import json

import pytest

from evaluation.runs.services.scoring import run_score
from evaluation.services.live_rebuild import live_state_rebuild
from evaluation.services.model_reliability import model_reliability_recompute
from evaluation.services.statistics import statistics_recompute
from tests.browser.test_annotation import login
from tests.browser.test_dashboard_and_leaderboard import lead_project  # noqa: F401 (fixture)
from tests.fixtures.collections import stc3_dialogues
from tests.reference_scoring import random_stc3_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PARTS = ["statistics", "live", "models", "runs"]


def shown(page) -> dict[str, dict]:
    """The parts as the page renders them: the include's data attributes, and the sentence."""
    return {
        item.get_attribute("data-freshness"): {
            "current": item.get_attribute("data-current") == "true",
            "computed_at": item.get_attribute("data-computed-at") or None,
            "stale_since": item.get_attribute("data-since") or None,
            "pending": item.get_attribute("data-pending") == "true",
            "text": item.inner_text(),
        }
        for item in page.locator("#freshness-parts li").all()
    }


def answered(page, live_server) -> dict[str, dict]:
    response = page.request.get(f"{live_server.url}/api/projects/dash/stats/")
    assert response.ok, response.text()
    return response.json()["freshness"]


def alike(page, api: dict[str, dict]) -> None:
    on_page = shown(page)
    assert list(on_page) == list(api) == PARTS
    for name, part in api.items():
        assert {k: on_page[name][k] for k in ("current", "computed_at", "stale_since", "pending")} == {
            k: part[k] for k in ("current", "computed_at", "stale_since", "pending")
        }, name
        assert part["reason"] in on_page[name]["text"]


def test_each_part_is_shown_on_the_pages_as_the_api_answers_it(live_server, page, lead_project, monkeypatch):  # noqa: F811
    raw = json.dumps(random_stc3_run(stc3_dialogues(), seed=1)).encode()
    run_score(project=lead_project, files=[("alpha.json", raw)], name="alpha")
    statistics_recompute(project_id=lead_project.pk)
    model_reliability_recompute(project_id=lead_project.pk)
    live_state_rebuild(project_id=lead_project.pk)
    login(page, live_server, "lead")
    page.goto(f"{live_server.url}/projects/dash/dashboard/")
    api = answered(page, live_server)
    assert all(part["current"] for part in api.values()), api
    alike(page, api)
    assert "current, computed" in shown(page)["statistics"]["text"]
    # a changed judgement (in the admin: a save of its item) while the workers have not run yet
    monkeypatch.setattr("config.enqueue.task_send", lambda name, *args, countdown=None, **_options: True)
    from django.contrib.admin.sites import site
    from django.test import RequestFactory

    from annotator.models import Judgement

    changed = Judgement.objects.filter(criterion__key="A").exclude(value="-2").first()
    changed.value = "-2"
    site._registry[Judgement].save_model(RequestFactory().post("/admin/"), changed, form=None, change=True)
    api = answered(page, live_server)  # asks for the recomputation, as the page would
    assert [api[p]["current"] for p in PARTS] == [False, True, False, False], api
    assert api["statistics"]["stale_since"] and api["statistics"]["stale_since"] == api["runs"]["stale_since"]
    for url in ("/projects/dash/dashboard/", "/projects/dash/runs/"):
        page.goto(f"{live_server.url}{url}")
        alike(page, api)
        assert "stale since" in shown(page)["runs"]["text"]
