"""Adaptive budgets in Chromium: the lead switches a project to adaptive on the manage page, annotators are handed
items one at a time from their queue, and the dashboard shows each item's labels and state, the budget spent and
left, and the power-analysis helper's answer."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model

from annotator.handout.selectors.adaptive import adaptive_status
from annotator.handout.services.adaptive import adaptive_budget_update
from annotator.models import AdaptiveBudget, Assignment
from tests.annotator.test_adaptive_budget import run_crowd
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_annotation import PASSWORD, login
from tests.factories import breakdown_project

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def with_browser_passwords(work):
    for user in [work.lead, *work.annotators]:
        user.set_password(PASSWORD)
        user.save()
    return work


def test_the_lead_turns_a_project_adaptive_and_annotators_get_one_item(live_server, page, screenshot, tmp_path):
    work = with_browser_passwords(breakdown_project(tmp_path, dialogues=6, annotators=2, k=2, assign=False, slug="ad"))
    login(page, live_server, "ad-lead")
    page.goto(f"{live_server.url}/projects/ad/manage/#adaptive-budget")
    section = page.locator("#adaptive-budget")
    section.get_by_label("Adaptive").check()
    section.get_by_label("Annotators per item, at least").fill("2")
    section.get_by_label("Annotators per item, at most").fill("5")
    section.get_by_label("Total budget", exact=False).fill("20")
    section.get_by_label("Stop rule").select_option("interval_width")
    section.get_by_label("Threshold", exact=False).fill("0.5")
    section.screenshot(path=str(SCREENSHOTS / "adaptive-manage-form.png"))
    section.get_by_role("button", name="Save the budget").click()
    page.wait_for_url("**/manage/#adaptive-budget")
    assert "Saved the budget per item." in page.content()
    saved = AdaptiveBudget.objects.get(project=work.project)
    assert (saved.adaptive, saved.min_k, saved.max_k, saved.budget, saved.stop_rule, saved.threshold) == (
        True, 2, 5, 20, "interval_width", 0.5
    )  # fmt: skip
    # an annotator opening their queue is handed one item, and only one
    page.context.clear_cookies()
    login(page, live_server, "ad-ann1")
    page.goto(f"{live_server.url}/projects/ad/queue/")
    page.goto(f"{live_server.url}/projects/ad/queue/")
    assert Assignment.objects.filter(annotator=work.annotators[0]).count() == 1


@pytest.mark.eager_tasks(
    reason="the statistics and the power analysis the pages ask of a worker, run in the live server"
)
def test_the_dashboard_shows_items_states_and_the_budget(live_server, page, screenshot, tmp_path):
    work = with_browser_passwords(
        breakdown_project(tmp_path, dialogues=8, annotators=12, k=3, assign=False, slug="adash")
    )
    adaptive_budget_update(
        project=work.project, adaptive=True, min_k=3, max_k=8, budget=60, stop_rule="interval_width", threshold=0.45
    )
    run_crowd(work, random.Random(7))
    status = adaptive_status(work.project)
    counts = status.state_counts()
    assert counts["stable"] and counts["at_maximum"]  # the page has both kinds to show
    login(page, live_server, "adash-lead")
    page.goto(f"{live_server.url}/projects/adash/dashboard/#adaptive-items")
    section = page.locator("#adaptive-items")
    assert section.locator("#adaptive-spent").inner_text() == str(status.spent)
    assert section.locator("#adaptive-left").inner_text() == str(60 - status.spent)
    assert section.locator("#adaptive-stable").inner_text() == str(counts["stable"])
    assert section.locator("#adaptive-at-maximum").inner_text() == str(counts["at_maximum"])
    rows = section.locator("#adaptive-table tbody tr")
    assert rows.count() == 8
    shown = {rows.nth(i).locator("td").nth(0).inner_text(): rows.nth(i).get_attribute("data-state") for i in range(8)}
    assert shown == {item.external_id: item.state for item in status.items}
    screenshot("adaptive-dashboard")
    section.screenshot(path=str(SCREENSHOTS / "adaptive-dashboard-section.png"))
    # only the stable ones
    section.get_by_label("State").select_option("stable")
    section.get_by_role("button", name="Show").click()
    page.wait_for_url("**item_state=stable**")
    assert page.locator("#adaptive-table tbody tr").count() == counts["stable"]
    # the power-analysis helper, from the labels so far
    power = page.locator("#power")
    power.get_by_label("Width of alpha's interval").fill("0.3")
    power.get_by_role("button", name="Estimate annotators per item").click()
    page.wait_for_url("**/dashboard/power/**")
    answer = page.locator("#power-answer").inner_text()
    assert "pilot of" in answer and page.locator("#power-table tbody tr").count() == 19
    screenshot("adaptive-power")
    assert get_user_model().objects.filter(username="adash-lead").exists()
