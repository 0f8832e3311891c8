"""In Chromium: the dashboard's charts download as SVG and PNG and their tables as CSV, and the study report's
page shows the stored figures with their fingerprint."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest

from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_create
from evaluation.models import StatisticsJob
from evaluation.services.incremental import statistics_with_running_figures
from evaluation.services.statistics import statistics_recompute
from tests.browser.test_annotation import PASSWORD, login
from tests.fixtures.collections import stc3_dialogues

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SVG = "{http://www.w3.org/2000/svg}"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def stored(tmp_path, django_user_model):
    project = project_create(slug="charts", name="Charts & <b>tables</b>", preset="stc3")
    path = tmp_path / "s.json"
    path.write_text(json.dumps(stc3_dialogues()))
    dialogues_import(project=project, paths=[path])
    lead = django_user_model.objects.create_user(username="lead", password=PASSWORD)
    membership_add(project=project, user=lead, role="lead")
    return statistics_recompute(project_id=project.pk)


def _download(page, box, fmt: str, tmp_path):
    with page.expect_download() as info:
        page.locator(f"{box} button[data-format={fmt}]").click()
    download = info.value
    target = tmp_path / download.suggested_filename
    download.save_as(target)
    return download.suggested_filename, target.read_bytes()


def test_dashboard_charts_download_as_svg_png_and_csv(live_server, page, stored, tmp_path):
    login(page, live_server, "lead")
    page.goto(f"{live_server.url}/projects/charts/dashboard/")
    page.wait_for_function("window.Chart && Chart.getChart(document.getElementById('agreement-chart'))")
    box = "#agreement-chart ~ .chart-downloads"

    name, svg = _download(page, box, "svg", tmp_path)
    assert name == "charts-agreement.svg"
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    criteria = [k for k in ("A", "E", "S", "nugget") if k in stored.payload["criteria"]]
    assert set(criteria) <= set(texts)  # the x axis names every criterion
    assert {"Fleiss' kappa", "Randolph's kappa", "Krippendorff's alpha"} <= set(texts)  # the legend
    bars = [r for r in root.iter(f"{SVG}rect") if r.get("fill") not in ("#fff", "none")]
    answer = statistics_with_running_figures(stored.project, stored.payload)[0]  # running figures: the live state's
    defined = sum(answer["criteria"][k][f] is not None for k in criteria for f in ("fleiss_kappa", "randolph_kappa"))
    assert len(bars) >= defined + 3  # a bar per defined figure, and the three legend boxes

    name, png = _download(page, box, "png", tmp_path)
    assert name == "charts-agreement.png" and png[:8] == PNG_MAGIC and len(png) > 1000

    name, raw = _download(page, box, "csv", tmp_path)
    assert name == "charts-agreement.csv"
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    shown = page.locator("#agreement-table tr").evaluate_all(
        "rows => rows.map(r => Array.from(r.children).map(c => c.innerText.split('\\n')[0].trim()))"
    )
    assert len(rows) == len(shown) and [r[0] for r in rows] == [r[0] for r in shown]
    header = rows[0]
    fleiss = header.index("Fleiss' κ")
    a_row = next(r for r in rows if r[0] == "A")
    assert a_row[fleiss].startswith(f"{answer['criteria']['A']['fleiss_kappa']:.4f}")
    assert a_row[1] == str(answer["criteria"]["A"]["n_units"])

    # a value chart's table, and the kappa heat map (drawn without Chart.js) as SVG
    name, raw = _download(page, "figure.chart-card >> nth=0 >> .chart-downloads", "csv", tmp_path)
    value_rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert name.startswith("charts-values-") and value_rows[0] == ["Value", "Count", "Mean gold share"]
    counts = {r[0]: int(r[1]) for r in value_rows[1:]}
    key = page.locator("figure.chart-card >> nth=0 >> canvas").get_attribute("data-criterion")
    assert name == f"charts-values-{key.lower()}.csv"
    assert counts == answer["value_counts"][key]
    heat = page.locator("figure.kappa >> nth=0")
    if heat.count():
        name, svg = _download(page, "figure.kappa >> nth=0 >> .chart-downloads", "svg", tmp_path)
        root = ET.fromstring(svg)
        assert root.tag == f"{SVG}svg" and name.startswith("charts-kappa-")
        cells = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
        assert cells and int(len(cells) ** 0.5) ** 2 == len(cells)  # a square of cells, one per pair


def test_leaderboard_table_downloads_as_csv(live_server, page, stored, tmp_path):
    """The leaderboard's table downloads from the server with every metric of the preset (not only the group
    shown): its first columns name the run and its state."""
    login(page, live_server, "lead")
    page.goto(f"{live_server.url}/projects/charts/runs/")
    with page.expect_download() as info:
        page.locator("[data-downloads=leaderboard] a[data-format=csv]").click()
    assert info.value.suggested_filename.startswith("charts-leaderboard") and info.value.suggested_filename.endswith(
        ".csv"
    )
    target = tmp_path / info.value.suggested_filename
    info.value.save_as(target)
    rows = list(csv.reader(io.StringIO(target.read_bytes().decode("utf-8-sig"))))
    assert rows[0][:4] == ["run", "status", "stale", "error"] and len(rows[0]) > 4
    assert rows[1:] == []  # no runs yet


@pytest.mark.eager_tasks(reason="the report's job the page starts, done as a worker would before the page polls")
def test_report_page_shows_the_stored_figures(live_server, page, screenshot, stored):
    login(page, live_server, "lead")
    page.goto(f"{live_server.url}/projects/charts/dashboard/")
    page.get_by_role("link", name="Study report").click()
    page.wait_for_selector("#report")
    methods = page.locator("#methods-text").inner_text()
    assert stored.fingerprint in methods
    fleiss = statistics_with_running_figures(stored.project, stored.payload)[0]["criteria"]["A"]["fleiss_kappa"]
    assert f"{fleiss:.3f}" in methods
    assert page.locator("#report h1").inner_text() == "Study report: Charts & <b>tables</b>"  # shown, not run
    assert page.locator("#report b").count() == 0
    screenshot("study-report")
    with page.expect_download() as info:
        page.locator("#report-download-md").click()
    assert info.value.suggested_filename == "charts-report-en.md"
    # judgements changed since: the report says so first, and offers the recomputation
    StatisticsJob.objects.update_or_create(
        project=stored.project, defaults={"requested_at": stored.checked_at + timedelta(seconds=1)}
    )
    page.reload()
    status = page.locator("#report-status")
    assert status.inner_text().startswith("These statistics are out of date")
    assert page.get_by_role("button", name="Recompute the statistics").is_visible()
    screenshot("study-report-stale")


@pytest.mark.eager_tasks(reason="the report's job the page starts, done as a worker would before the page polls")
def test_a_stale_report_says_when_it_is_computed_again_and_reloads_itself_then(
    live_server, page, screenshot, stored, settings
):
    """While the judgements keep changing, the study report is computed again at most once per ten times its
    last computation's length: the page shows the stale report, says at what time it is computed again, and
    reloads itself then, starting no job before."""
    from django.utils import timezone

    from annotator.models import Job, JobState

    settings.JOB_RECOMPUTE_DUTY_FACTOR = 10
    login(page, live_server, "lead")
    page.goto(f"{live_server.url}/projects/charts/report/")
    page.wait_for_selector("#report")
    reports = Job.objects.filter(task="evaluation.tasks.compute_study_report")
    done = reports.get(state=JobState.DONE)
    # given the report took 6 s (a large project) and the judgements changed since (a save records its time)
    reports.filter(pk=done.pk).update(started_at=done.finished_at - timedelta(seconds=6))
    StatisticsJob.objects.filter(project=stored.project).update(changed_at=timezone.now())
    page.reload()
    page.wait_for_selector("#report")
    next_at = timezone.localtime(done.finished_at + timedelta(seconds=60)).strftime("%H:%M:%S")
    note = page.locator("#job-next").inner_text()
    assert note.startswith(f"Computed again at {next_at}") and "at most once per 10 times" in note
    assert "This page reloads by itself then." in note
    refresh = int(page.locator('meta[http-equiv="refresh"]').get_attribute("content"))
    until = (done.finished_at + timedelta(seconds=60) - timezone.now()).total_seconds()
    assert until <= refresh <= until + 3  # just after the time it names, not the running job's 5 s
    assert "the judgements changed since" in page.locator("#job-computed").inner_text()
    assert reports.count() == 1  # nothing started before that time
    screenshot("study-report-computed-again")
