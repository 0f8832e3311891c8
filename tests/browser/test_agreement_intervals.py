"""In Chromium: the dashboard shows each agreement figure with its interval, opens the data behind it and
downloads it as CSV."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from evaluation.services.incremental import statistics_with_running_figures
from evaluation.services.statistics import statistics_recompute
from tests.browser.conftest import live_figures_settled
from tests.factories import PASSWORD, breakdown_project, submit_all

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LABELS = ("O", "T", "X")


def login(page, live_server, username):
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")


def test_the_dashboard_shows_intervals_and_the_data_behind_them(live_server, page, screenshot, tmp_path):
    # given 20 breakdown dialogues (40 units) judged by three annotators who mostly agree
    work = breakdown_project(tmp_path, dialogues=20, annotators=3, k=3, slug="ci")
    rng = np.random.default_rng(7)
    truth = {}

    def choose(assignment, key, unit):
        true = truth.setdefault((assignment.dialogue_id, unit), rng.choice(3, p=[0.6, 0.25, 0.15]))
        return LABELS[true if rng.random() < 0.75 else rng.integers(3)]

    for person in work.annotators:
        submit_all(person, work.project, choose)
    stored = statistics_recompute(project_id=work.project.pk).payload  # its running figures: the live state's
    entry = statistics_with_running_figures(work.project, stored)[0]["criteria"]["breakdown"]
    # when the lead opens the dashboard
    login(page, live_server, work.lead.username)
    live_figures_settled(page, live_server.url, "ci")
    page.goto(f"{live_server.url}/projects/ci/dashboard/")
    # then each figure has its interval beside it, and says how it was obtained
    cells = page.locator('#agreement-table tr[data-criterion="breakdown"] td').all_inner_texts()
    low, high = entry["intervals"]["fleiss_kappa"]["ci"]
    assert cells[2] == f"{entry['fleiss_kappa']:.4f} [{low:.3f}, {high:.3f}]"
    title = page.locator('#agreement-table tr[data-criterion="breakdown"] td .ci').first.get_attribute("title")
    assert title == "95% bootstrap interval over units (1000 resamples)"
    # the data behind the figures opens: units, annotators and pairable values, categories, coincidences
    block = page.locator('details.agreement-data[data-block="breakdown"]')
    block.locator("summary").click()
    assert "40 units, 120 pairable values, annotators: 3" in block.locator(".evidence-counts").inner_text()
    rows = block.locator(".evidence-categories tbody tr").all_inner_texts()
    assert [r.split("\t") for r in rows] == [[c, str(n)] for c, n in zip(("NB", "PB", "B"), entry["category_counts"])]
    first_row = block.locator(".evidence-coincidences tbody tr").first.locator("td").all_inner_texts()
    assert first_row == [f"{x:.2f}" for x in entry["coincidences"][0]]
    page.locator('details.agreement-data[data-block="breakdown/cohen"] summary').click()
    page.locator("#agreement-data").scroll_into_view_if_needed()
    screenshot("dashboard-intervals")
    shots = screenshot("dashboard-intervals").parent
    page.locator("#agreement-table").screenshot(path=str(shots / "dashboard-intervals-table.png"))
    page.locator("#agreement-data").screenshot(path=str(shots / "dashboard-intervals-data.png"))
    # and downloads as CSV
    with page.expect_download() as download:
        block.get_by_role("link", name="Download as CSV").last.click()
    with open(download.value.path(), encoding="utf-8") as f:
        table = list(csv.reader(f))
    assert table[0] == ["category", "NB", "PB", "B"] and len(table) == 4
    np.testing.assert_allclose(np.array([r[1:] for r in table[1:]], dtype=float), entry["coincidences"])
    # a kappa cell of the heat map's table names its interval and the units the pair shared
    cell = page.locator('.kappa-table[data-criterion="breakdown"] tbody tr').first.locator("td").nth(1)
    assert "units shared" in cell.get_attribute("title") and "bootstrap" in cell.get_attribute("title")
