"""The statistics answer says whether the dashboard's live figures are current, through ``manage.py runserver`` and
its worker as ``scripts/serve.sh`` runs them: after an exclusion ``GET .../stats/`` says they are stale, since when
and why (the dashboard's words), and answers the stored full figures, out of date (``X-Statistics-Up-To-Date``)
until they are recomputed without the excluded annotator (never in the request); once the worker has rebuilt the
live figures it says they are current, with the rebuild's time. ``stats --json`` says the same. (The test's own
changes reach the server's worker through the broker: marker ``worker``.)"""

from __future__ import annotations

import json

import pytest

from annotator.services.exclusions import annotator_exclude
from evaluation.models import LiveState
from evaluation.services import incremental
from evaluation.services.live_rebuild import live_state_rebuild
from evaluation.services.statistics import statistics_recompute
from tests.conftest import database_url
from tests.factories import breakdown_project, submit_all
from tests.live_servers import running, start_runserver
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.worker,
    pytest.mark.both_databases(
        reason=(
            "the embedded default as serve.sh runs it: the live figures rebuilt by its worker on the filesystem "
            "broker beside the server's requests, SQLite's one writer"
        )
    ),
]


def _built_project(tmp_path):
    """Four annotators on four dialogues, the first saying X everywhere and the others O; statistics and live
    state built."""
    work = breakdown_project(tmp_path, dialogues=4, annotators=4, k=4, slug="live-api")
    for i, person in enumerate(work.annotators):
        submit_all(person, work.project, lambda a, key, unit, i=i: "X" if i == 0 else "O")
    statistics_recompute(project_id=work.project.pk)
    live_state_rebuild(project_id=work.project.pk)
    return work


def _excluded(answer: dict) -> set[str]:
    return {row["annotator"] for row in answer["population"]["excluded"]}


def test_the_stats_answer_says_stale_with_the_reason_then_current_after_the_rebuild(tmp_path, monkeypatch, manage):
    # given a project whose live figures are built, served by runserver as serve.sh runs it
    work = _built_project(tmp_path)
    project, first, second = work.project, work.annotators[0], work.annotators[1]
    built = LiveState.objects.get(project=project).built_at
    with running(start_runserver(database_url(), tmp_path / "runserver.log", with_worker=True)) as server:
        session = server.token_session(work.lead)
        url = f"{server.url}/api/projects/{project.slug}/stats/"

        def stats(**headers) -> dict:
            answer = session.get(url, headers=headers, timeout=120)
            assert answer.status_code == 200, answer.text[:500]
            return {**answer.json(), "up_to_date": answer.headers["X-Statistics-Up-To-Date"] == "true"}

        # then the answer says the live figures are current, built when they were
        live = stats()["live"]
        assert live == {
            "stale": False,
            "stale_since": None,
            "stale_because": None,
            "stale_reason": None,
            "built_at": built.isoformat(),
            "rebuild_seconds": LiveState.objects.get(project=project).rebuild_seconds,
        }
        # when the lead excludes the first annotator, and the rebuild that asks for is held back (a slow worker)
        with monkeypatch.context() as held:
            held.setattr(incremental, "live_state_rebuild_request", lambda project_id: True)
            annotator_exclude(project=project, username=first.username, reason="spam", excluded_by=work.lead)
        since = LiveState.objects.get(project=project).stale_since
        assert since is not None
        # then stats --json says the live figures are stale since the exclusion, and why (it asks for no rebuild)
        printed = json.loads(manage("stats", project.slug, "--json", check=True).stdout)
        assert printed["live"]["stale"] is True and printed["live"]["stale_because"] == "exclusion"
        assert printed["live"]["stale_since"] == since.isoformat()
        assert printed["live"]["stale_reason"] == "an annotator was excluded"
        # and so does the API, in the dashboard's words (its reading asks the server for the rebuild: once only)
        answer = stats()
        assert answer["live"]["stale"] is True
        assert answer["live"]["stale_since"] == since.isoformat()
        assert answer["live"]["stale_because"] == "exclusion"
        assert answer["live"]["stale_reason"] == "an annotator was excluded"
        assert answer["live"]["built_at"] == built.isoformat()  # the figures as they were before
        # while the answer's own figures, the last full computation (stats --json's just now, or the worker's), are
        # said to be out of date until they are recomputed, and then leave the excluded annotator out
        assert answer["up_to_date"] or _excluded(answer) == set()
        assert wait_for(lambda: stats()["up_to_date"], timeout=120), server.log.read_text()[-3000:]
        assert _excluded(stats()) == {first.username}
        # and once the server has rebuilt the live figures (the answer's reading asked for it), they are current
        assert wait_for(lambda: not stats()["live"]["stale"], timeout=120), server.log.read_text()[-3000:]
        state = LiveState.objects.get(project=project)
        live = stats()["live"]
        assert live["stale_since"] is None and live["stale_reason"] is None and live["stale_because"] is None
        assert live["built_at"] == state.built_at.isoformat() and state.built_at > built
        assert state.excluded == [first.pk] and state.rebuilt_because == "exclusion"
        printed = json.loads(manage("stats", project.slug, "--json", check=True).stdout)
        assert printed["live"]["stale"] is False and printed["live"]["built_at"] == state.built_at.isoformat()

        # when the lead excludes the second annotator through the API, the server rebuilds the figures by itself
        excluded = session.post(
            f"{server.url}/api/projects/{project.slug}/exclusions/",
            json={"annotator": second.username, "reason": "too fast"},
            timeout=60,
        )
        assert excluded.status_code == 201, excluded.text[:500]
        both = sorted([first.pk, second.pk])
        assert wait_for(lambda: sorted(LiveState.objects.get(project=project).excluded) == both, timeout=120), (
            server.log.read_text()[-3000:]
        )
        # then the answer says current, with that rebuild's time, and its figures leave both out
        assert wait_for(lambda: stats()["up_to_date"], timeout=120), server.log.read_text()[-3000:]
        answer = stats()
        rebuilt = LiveState.objects.get(project=project)
        assert answer["live"]["stale"] is False and answer["live"]["built_at"] == rebuilt.built_at.isoformat()
        assert rebuilt.built_at > state.built_at and rebuilt.rebuilt_because == "exclusion"
        assert _excluded(answer) == {first.username, second.username}
