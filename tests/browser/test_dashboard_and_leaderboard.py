"""The lead's dashboard and leaderboard in Chromium show the stored numbers."""

from __future__ import annotations

import json

import pytest

from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_create
from evaluation.models import ProjectStatistics, Run, RunComparison
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.incremental import statistics_with_running_figures
from evaluation.services.statistics import statistics_recompute
from tests.browser.test_annotation import PASSWORD, login
from tests.fixtures.collections import stc3_dialogues
from tests.reference_scoring import random_stc3_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def fmt(value):
    return "–" if value is None else f"{value:.4f}"


@pytest.fixture
def lead_project(tmp_path, django_user_model):
    project = project_create(slug="dash", preset="stc3")
    path = tmp_path / "s.json"
    path.write_text(json.dumps(stc3_dialogues()))
    dialogues_import(project=project, paths=[path])
    lead = django_user_model.objects.create_user(username="lead", password=PASSWORD)
    membership_add(project=project, user=lead, role="lead")
    return project


def test_dashboard_shows_the_stored_statistics(live_server, page, screenshot, lead_project, monkeypatch):
    stored = statistics_recompute(project_id=lead_project.pk)
    answer = statistics_with_running_figures(lead_project, stored.payload)[0]  # running figures: the live state's
    login(page, live_server, "lead")
    page.goto(f"{live_server.url}/projects/dash/dashboard/")
    assert page.locator("#n-judgements").inner_text() == str(stored.n_judgements)
    assert page.locator("#fresh-state").inner_text() == "Up to date."
    for key in ("A", "nugget"):
        cells = page.locator(f'#agreement-table tr[data-criterion="{key}"] td').all_inner_texts()
        c = answer["criteria"][key]
        assert cells[0] == str(c["n_units"]) and cells[1] == str(c["n_annotators"])
        # each value with its interval beside it
        assert cells[2].startswith(fmt(c["fleiss_kappa"])) and cells[3].startswith(fmt(c["randolph_kappa"]))
        assert cells[4].startswith(fmt(c["krippendorff_alpha"]["ordinal" if key == "A" else "nominal"]))
    helpdesk = page.locator('#agreement-table tr[data-criterion="nugget:helpdesk"] td').all_inner_texts()
    assert helpdesk[2].startswith(fmt(stored.payload["criteria"]["nugget"]["by_speaker"]["helpdesk"]["fleiss_kappa"]))
    # the charts drew, from the same numbers
    assert page.evaluate(
        "Chart.getChart(document.getElementById('agreement-chart')).data.datasets[0].data[0]"
    ) == pytest.approx(answer["criteria"]["A"]["fleiss_kappa"])
    labels = page.evaluate("Chart.getChart(document.querySelector('canvas.value-chart')).data.labels")
    assert labels == ["-2", "-1", "0", "1", "2"]
    # the most disputed units link to the side-by-side view of all annotators' judgements
    page.locator("#disputed-table a").first.click()
    # criterion, unit, two annotators, and the unit's labels, entropy and pairs agreeing
    assert page.locator("#side-by-side thead th").count() == 2 + 2 + 3
    screenshot("dialogue-judgements")
    page.go_back()
    screenshot("dashboard")
    # a changed judgement (here in the admin, which counts as a save of its item) makes the page say it is stale
    # while the workers have not recomputed yet (the recomputation is queued, not run)

    monkeypatch.setattr("config.enqueue.task_send", lambda name, *args, countdown=None, **_options: True)
    from django.contrib.admin.sites import site
    from django.test import RequestFactory

    from annotator.models import Judgement

    changed = Judgement.objects.filter(criterion__key="A").first()
    changed.value = "-2"
    site._registry[Judgement].save_model(RequestFactory().post("/admin/"), changed, form=None, change=True)
    page.reload()
    assert page.locator("#fresh-state").inner_text().startswith("Out of date")
    assert "A recomputation is scheduled." in page.locator("#freshness").inner_text()


@pytest.mark.eager_tasks(reason="each upload scored by its job as the worker would, before the page is read")
def test_leaderboard_upload_scores_and_significance(live_server, page, screenshot, lead_project, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 900})
    login(page, live_server, "lead")
    for seed in range(3):
        path = tmp_path / f"run{seed}.json"
        path.write_text(json.dumps(random_stc3_run(stc3_dialogues(), seed)))
        page.goto(f"{live_server.url}/projects/dash/runs/")
        page.get_by_label("Name").fill(f"system-{seed}")
        page.get_by_label("Files").set_input_files(str(path))
        page.get_by_role("button", name="Upload").click()
        page.wait_for_url("**/projects/dash/runs/")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"id": "d1", "quality": {"A": {"3": 1}}}]')
    page.get_by_label("Name").fill("broken")
    page.get_by_label("Files").set_input_files(str(bad))
    page.get_by_role("button", name="Upload").click()
    page.goto(f"{live_server.url}/projects/dash/runs/")
    assert "field quality.A.3: unknown label" in page.locator('#leaderboard tr[data-run="broken"]').inner_text()
    for run in Run.objects.filter(status="scored"):
        cells = page.locator(f'#leaderboard tr[data-run="{run.name}"] td').all_inner_texts()
        assert cells[0] == "Scored"
        assert cells[1] == fmt(run.scores["quality"]["A"]["rsnod"])
        assert cells[-3] == fmt(run.scores["nugget"]["jsd"])  # the last main metric, before CSV and Delete
    comparison = RunComparison.objects.get(project=lead_project, metric="A.rsnod")
    page.goto(f"{live_server.url}/projects/dash/runs/?metric=A.rsnod")
    rows = page.locator("#p-matrix tbody tr")
    assert rows.count() == 3
    first_row = rows.nth(0).locator("td").all_inner_texts()
    assert first_row == [f"{p:.3f}" for p in comparison.payload["tukey_hsd"]["p_values"][0]]
    screenshot("leaderboard-stc3")
    assert ProjectStatistics.objects.count() >= 0


def test_breakdown_leaderboard_fits_1280_px_sorts_and_says_why_significance_is_missing(
    live_server, page, screenshot, django_user_model
):
    from annotator.services.demo import DEMO_DIR
    from evaluation.runs.services.compare import comparisons_refresh
    from scoring.metric_names import BREAKDOWN_METRICS

    page.set_viewport_size({"width": 1280, "height": 900})
    project = project_create(slug="bd-board", preset="dbdc", name="Breakdown systems")
    dialogues_import(project=project, paths=[DEMO_DIR / "dbdc"])
    lead = django_user_model.objects.create_user(username="bd-lead", password=PASSWORD)
    membership_add(project=project, user=lead, role="lead")
    for i, name in enumerate(["system-a", "system-b", "system-c"]):
        scores = {m: round(0.3 + 0.1 * ((i * 7 + j) % 5), 4) for j, m in enumerate(BREAKDOWN_METRICS)}
        per_dialogue = {f"d{k}": {"MSE(NB,PB,B)": 0.1 * i + 0.01 * k} for k in range(12)}
        per_dialogue[f"only-{name}"] = {"F1(B)": 0.5}  # no dialogue has an F1(B) in every run
        Run.objects.create(
            project=project,
            name=name,
            kind="dbdc",
            status="scored",
            scores={"breakdown": scores},
            per_dialogue=per_dialogue,
            gold_fingerprint=judgements_fingerprint(project),
        )
    comparisons_refresh(project=project, trials=200)
    login(page, live_server, "bd-lead")
    page.goto(f"{live_server.url}/projects/bd-board/runs/")
    # the four main metrics only: no sideways scroll at 1280 px
    assert page.locator("#leaderboard thead th[data-metric]").count() == 4
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    # sort by MSE (lower is better): best first
    page.locator("#leaderboard thead th[data-metric] a", has_text="MSE(NB,PB,B)").click()
    order = page.locator("#leaderboard tbody tr").evaluate_all("rows => rows.map(r => r.dataset.run)")
    mse = {r.name: r.scores["breakdown"]["MSE(NB,PB,B)"] for r in Run.objects.filter(project=project)}
    assert order == sorted(mse, key=lambda n: (mse[n], order.index(n)))
    assert "best first" in page.locator('th[data-metric="breakdown.MSE(NB,PB,B)"]').inner_text()
    # why F1(B) has no significance test, in the service's words
    row = page.locator('#metric-choice tr[data-metric="F1(B)"]').inner_text()
    assert "Cannot be computed: no dialogue has a 'F1(B)' score in every run" in row
    assert page.locator('#metric-choice tr[data-metric="MSE(NB,PB,B)"] a').count() == 1
    screenshot("leaderboard")
    # every metric is one click away
    page.get_by_role("link", name="All metrics (26)").click()
    assert page.locator("#leaderboard thead th[data-metric]").count() == 26
    wide = page.evaluate(
        "Array.from(document.querySelectorAll('*')).filter(e => e.getBoundingClientRect().right > 1300)"
        ".map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 12)"
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280, wide  # the table scrolls in its box
