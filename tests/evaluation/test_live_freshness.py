"""The ``live`` part of the statistics answer (``evaluation.services.live_freshness``): it fits its documented
type, says stale with the dashboard's reason in the request's language, and a project never built is stale
"for the first time"; ``stats --json`` reads it without writing or asking for anything. Through a live server:
``tests/api/test_stats_live_freshness_live.py``."""

from __future__ import annotations

import pytest
from django.utils import translation

from annotator.services.exclusions import annotator_exclude
from evaluation.models import LiveState
from evaluation.services import incremental
from evaluation.services.incremental import STALE_REASONS
from evaluation.services.live_freshness import live_freshness
from evaluation.services.live_rebuild import live_state_rebuild
from evaluation.services.payloads import StatisticsAnswer
from evaluation.services.statistics import statistics_recompute
from tests.evaluation.test_stats_payload_schema import problems
from tests.factories import api_client, breakdown_project, submit_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def work(tmp_path):
    work = breakdown_project(tmp_path, dialogues=3, annotators=3, k=3, slug="fresh")
    for i, person in enumerate(work.annotators):
        submit_all(person, work.project, lambda a, key, unit, i=i: "X" if i == 0 else "O")
    statistics_recompute(project_id=work.project.pk)  # the workers' (the answer is the stored statistics)
    return work


def test_the_answer_fits_its_type_and_says_current_once_built(work):
    # given a project whose live figures are built
    live_state_rebuild(project_id=work.project.pk)
    state = LiveState.objects.get(project=work.project)
    # when the lead asks for the statistics
    answer = api_client(work.lead).get(f"/api/projects/{work.project.slug}/stats/").json()
    # then the answer fits the documented type, and says the live figures are current, built when they were
    assert problems(answer, StatisticsAnswer) == []
    assert answer["live"]["stale"] is False and answer["live"]["stale_reason"] is None
    assert answer["live"]["built_at"] == state.built_at.isoformat()


def test_after_an_exclusion_the_reason_is_in_the_requests_language(work, monkeypatch):
    # given built live figures, then an exclusion whose rebuild has not run
    live_state_rebuild(project_id=work.project.pk)
    monkeypatch.setattr(incremental, "live_state_rebuild_request", lambda project_id: True)
    annotator_exclude(project=work.project, username=work.annotators[0].username, reason="spam", excluded_by=work.lead)
    # when the lead asks in Japanese
    answer = api_client(work.lead).get(f"/api/projects/{work.project.slug}/stats/", HTTP_ACCEPT_LANGUAGE="ja")
    # then the reason is the dashboard's, in Japanese
    with translation.override("ja"):
        in_japanese = str(STALE_REASONS["exclusion"])
    assert in_japanese != "an annotator was excluded"  # a translation, not the English
    live = answer.json()["live"]
    assert live["stale"] is True and live["stale_because"] == "exclusion" and live["stale_reason"] == in_japanese
    assert live["stale_since"] == LiveState.objects.get(project=work.project).stale_since.isoformat()
    assert problems(answer.json(), StatisticsAnswer) == []


def test_a_project_never_built_is_stale_and_a_command_reading_it_writes_nothing(work, monkeypatch):
    asked = []
    monkeypatch.setattr(
        incremental, "live_state_rebuild_request_on_commit", lambda project_id: asked.append(project_id)
    )
    # (the recomputation builds a state never built: here statistics stored before any state, as from an archive)
    LiveState.objects.filter(project=work.project).delete()
    # when a command reads the freshness of a project whose live figures were never built
    live = live_freshness(work.project, ask_for_rebuild=False)
    # then they are stale, being prepared for the first time, and nothing was written or asked for
    assert live["stale"] is True and live["stale_because"] == "first" and live["built_at"] is None
    assert live["stale_reason"] == str(STALE_REASONS["first"])
    assert not LiveState.objects.filter(project=work.project).exists() and asked == []
    # while the API's reading, as the dashboard's, creates the state and asks for its rebuild
    answer = api_client(work.lead).get(f"/api/projects/{work.project.slug}/stats/").json()
    assert answer["live"]["stale"] is True and answer["live"]["stale_because"] == "first"
    assert LiveState.objects.filter(project=work.project).exists() and asked == [work.project.pk]
    # with no running figure until it is built (the stored payload leaves them out), the rest as stored
    breakdown = answer["criteria"]["breakdown"]
    assert breakdown["fleiss_kappa"] is None and breakdown["n_units"] is None and "intervals" in breakdown
    assert answer["value_counts"] == {}
