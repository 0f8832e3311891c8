"""Leaderboard numbers are current or visibly stale: every run's scores carry the fingerprint of the gold they
were scored against; an exclusion (any change of what counts) re-scores every run in the background, and
until then the page and the API show each run as stale with the reason, and the comparisons leave it out."""

from __future__ import annotations

import json

import pytest

from annotator.models import AnnotatorExclusion
from annotator.services.demo import DEMO_DIR
from annotator.services.exclusions import annotator_exclude
from evaluation.models import Run, RunComparison, RunStatus
from evaluation.runs.services.compare import comparisons_refresh
from evaluation.runs.services.freshness import runs_rescore_stale
from evaluation.runs.services.scoring import run_score
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.schedule import statistics_request
from evaluation.services.statistics import statistics_recompute
from tests.factories import api_client, project_with_submissions
from tests.reference_scoring import random_stc3_run

pytestmark = pytest.mark.django_db(transaction=True)

RUNS = ("alpha", "beta", "gamma")


@pytest.fixture
def board():
    """An STC-3 project with the demo's imported annotations and two annotators' own, three scored runs,
    and the comparisons of the three."""
    work = project_with_submissions("stc3", slug="fresh")
    dialogues = json.loads((DEMO_DIR / "stc3.json").read_text(encoding="utf-8"))
    for seed, name in enumerate(RUNS):
        raw = json.dumps(random_stc3_run(dialogues, seed=seed)).encode()
        run_score(project=work.project, files=[(f"{name}.json", raw)], name=name)
    comparisons_refresh(project=work.project, trials=100)
    return work


def exclude(work) -> None:
    """The lead excludes the first annotator, as the API's exclusion does: then asks for the statistics."""
    annotator_exclude(
        project=work.project, username=work.annotators[0].username, reason="answers at random", excluded_by=work.lead
    )
    statistics_request(project_id=work.project.pk)


def scores_of(project) -> dict[str, dict]:
    return {r.name: r.scores for r in Run.objects.filter(project=project)}


@pytest.fixture
def busy_workers(monkeypatch):
    """Work is sent to workers that have not run it yet (the names of the tasks sent)."""
    sent = []
    monkeypatch.setattr(
        "config.enqueue.task_send", lambda name, *args, countdown=None, **_options: sent.append(name) or True
    )
    return sent


def test_runs_carry_the_fingerprint_of_the_gold_they_were_scored_against(board):
    current = judgements_fingerprint(board.project)
    assert {r.gold_fingerprint for r in Run.objects.filter(project=board.project)} == {current}
    assert set(RunComparison.objects.filter(project=board.project).values_list("gold_fingerprint", flat=True)) == {
        current
    }


@pytest.mark.eager_tasks(reason="the re-scoring the statistics' recomputation sends, run where the test reads it")
def test_an_exclusion_rescores_every_run_in_the_background(board):
    """The statistics' recomputation finds the new gold and sends the re-scoring (run here, in the caller)."""
    before = scores_of(board.project)
    old = judgements_fingerprint(board.project)
    statistics_recompute(project_id=board.project.pk)
    exclude(board)
    statistics_recompute(project_id=board.project.pk)  # what the worker runs for the request above
    new = judgements_fingerprint(board.project)
    assert new != old
    runs = list(Run.objects.filter(project=board.project))
    assert {r.gold_fingerprint for r in runs} == {new} and all(r.status == RunStatus.SCORED for r in runs)
    after = scores_of(board.project)
    assert all(after[n]["quality"] != before[n]["quality"] for n in RUNS)  # against the gold without the excluded
    comparisons = RunComparison.objects.filter(project=board.project, error="")
    assert comparisons.exists() and {c.gold_fingerprint for c in comparisons} == {new}


def test_until_rescored_the_page_and_the_api_show_each_run_stale_with_the_reason(board, client, busy_workers):
    exclude(board)
    statistics_recompute(project_id=board.project.pk)
    assert "evaluation.tasks.rescore_stale_runs" in busy_workers  # asked for, not run yet
    client.force_login(board.lead)
    page = client.get("/projects/fresh/runs/").content.decode()
    for name in RUNS:
        assert f'<tr data-run="{name}" data-stale>' in page
    assert page.count("Stale: scored against an earlier gold") == len(RUNS)
    assert "3 runs are stale and left out until they are scored again" in page
    assert 'id="matrix-heading"' not in page  # no p-values of stale scores
    listed = api_client(board.lead).get("/api/projects/fresh/runs/").json()["results"]
    assert all(r["stale"] and "exclusion" in r["stale_reason"] for r in listed)
    # significance tests take only runs scored against the current gold: none here
    assert comparisons_refresh(project=board.project, trials=100) == 0
    assert all("current gold" in c.error for c in RunComparison.objects.filter(project=board.project))
    # the worker's re-scoring, run twice (a redelivered message): the second finds nothing to do
    assert runs_rescore_stale(project_id=board.project.pk) == len(RUNS)
    assert runs_rescore_stale(project_id=board.project.pk) == 0
    page = client.get("/projects/fresh/runs/").content.decode()
    assert "data-stale" not in page and 'id="matrix-heading"' in page
    assert not any(r["stale"] for r in api_client(board.lead).get("/api/projects/fresh/runs/").json()["results"])


def test_a_run_whose_files_were_not_kept_stays_stale_and_says_so(board, client, busy_workers):
    Run.objects.filter(project=board.project, name="alpha").update(source=None, gold_fingerprint="")
    assert runs_rescore_stale(project_id=board.project.pk) == 0  # nothing it could score again
    client.force_login(board.lead)
    page = client.get("/projects/fresh/runs/").content.decode()
    assert '<tr data-run="alpha" data-stale>' in page and "upload it again" in page
    assert '<tr data-run="beta">' in page


def test_including_the_annotator_again_is_another_change(board, busy_workers):
    exclude(board)
    runs_rescore_stale(project_id=board.project.pk)
    AnnotatorExclusion.objects.filter(project=board.project).delete()
    current = judgements_fingerprint(board.project)
    assert not Run.objects.filter(project=board.project, gold_fingerprint=current).exists()


def test_comparisons_computed_before_the_gold_changed_are_not_shown(board, client, busy_workers):
    """Three runs current again but the comparisons not yet refreshed (the worker between the two): the page
    says the comparisons are being recomputed instead of showing p-values of the earlier scores."""
    exclude(board)
    Run.objects.filter(project=board.project).update(gold_fingerprint=judgements_fingerprint(board.project))
    client.force_login(board.lead)
    page = client.get("/projects/fresh/runs/").content.decode()
    assert 'id="comparisons-stale"' in page and 'id="matrix-heading"' not in page


def test_a_rescore_after_an_exclusion_sends_each_runs_webhook(board, busy_workers, tasks_sent):
    from annotator.models import Webhook, WebhookDelivery

    Webhook.objects.create(project=board.project, url="https://hooks.example.org/in", events=["run.scored"], secret="s")
    exclude(board)
    assert runs_rescore_stale(project_id=board.project.pk) == len(RUNS)
    deliveries = list(WebhookDelivery.objects.filter(webhook__project=board.project, event="run.scored"))
    sent = {t.args[0] for t in tasks_sent if t.name == "annotator.tasks.deliver_webhook"}
    assert sorted(d.payload["name"] for d in deliveries) == sorted(RUNS) and sent == {d.pk for d in deliveries}
    current = judgements_fingerprint(board.project)
    for d in deliveries:
        assert d.payload["rescored"] and d.payload["gold_fingerprint"] == current
        assert d.payload["scores"] == Run.objects.get(project=board.project, name=d.payload["name"]).scores


def test_a_run_missing_a_dialogue_says_so_in_the_api_and_is_ranked_after_complete_runs(board, client):
    from evaluation.runs.selectors.leaderboard import leaderboard

    dialogues = json.loads((DEMO_DIR / "stc3.json").read_text(encoding="utf-8"))
    total = len(dialogues)
    partial = random_stc3_run(dialogues[1:], seed=9)  # the first dialogue left out
    run_score(project=board.project, files=[("partial.json", json.dumps(partial).encode())], name="partial")
    coverage = Run.objects.get(project=board.project, name="partial").scores["coverage"]
    assert coverage == {
        "dialogues": total - 1,
        "gold_dialogues": total,
        "complete": False,
        "missing": [dialogues[0]["id"]],
        "n_missing": 1,
    }
    assert all(Run.objects.get(project=board.project, name=n).scores["coverage"]["complete"] for n in RUNS)
    answer = api_client(board.lead).get(f"/api/projects/{board.project.slug}/runs/").json()
    runs = {r["name"]: r for r in (answer["results"] if isinstance(answer, dict) else answer)}
    assert runs["partial"]["coverage"]["dialogues"] == total - 1 and runs["alpha"]["coverage"]["complete"]
    # sorted by a metric, best first, whatever its score: after the three complete runs, with its mark
    for order in ("best", "worst"):
        board_rows = leaderboard(project=board.project, sort="quality.A.rsnod", order=order)["runs"]
        assert [r.name for r in board_rows][-1] == "partial" and board_rows[-1].partial
    row = board_rows[-1]
    assert row.coverage_mark == f"partial: {total - 1} / {total} dialogues"
    assert f"Scored on {total - 1} of the gold's {total} dialogues: 1 is missing" in row.coverage_note
    client.force_login(board.lead)
    page = client.get(f"/projects/{board.project.slug}/runs/").content.decode()
    assert "data-partial" in page and f"partial: {total - 1} / {total} dialogues" in page
