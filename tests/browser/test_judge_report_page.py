"""A lead in real Chromium opens a judge's page from the judges list: the alt-test verdict beside its
reference judges, the agreement table, the reliability diagram, the PPI intervals and the comparison of the
project's judges with the references' rows, each plot with its table; a new epsilon recomputes the test; a
judge that always answers one label is "not informative here", in English, Japanese and Chinese."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.services.judgements import judgements_save
from tests.batched import tasks_after
from tests.factories import PASSWORD, breakdown_project, judge_constant, judge_copying, random_values

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, url, username):
    page.goto(f"{url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{url}/")


@pytest.mark.eager_tasks(reason="the judge's report the page asks of a worker, run in the live server")
def test_a_lead_reads_a_judges_report(live_server, page, screenshot, tmp_path, monkeypatch):
    work = breakdown_project(tmp_path, dialogues=40, annotators=4, k=4, slug="judge-page")
    rng = np.random.default_rng(1)
    with tasks_after(monkeypatch):  # the statistics computed once for the 160 submissions, not after each
        for person in work.annotators:
            for assignment in work.assignments_of(person):
                judgements_save(
                    assignment_id=assignment.pk, user=person, values=random_values(assignment, rng), submit=True
                )
    judge_copying(work.project, 0, "annotator-copy", confidence=0.7)
    judge_copying(work.project, 1, "second-copy", confidence=0.9)
    judge_constant(work.project, "T", "always-T")
    sign_in(page, live_server.url, work.lead.username)
    page.goto(f"{live_server.url}/projects/judge-page/manage/judges/")
    page.get_by_role("link", name="annotator-copy").click()
    page.get_by_role("heading", name="Judge annotator-copy against the humans").wait_for()
    verdict = page.locator("#alt-test-verdict").inner_text()
    assert verdict.startswith("Verdict: ") and "Winning rate" in verdict and "best trivial" in verdict
    assert "ε = 0.1, the crowd workers' and the strictest" in page.locator("#epsilon-source").inner_text()
    page.locator("#alt-test-breakdown summary").click()
    references = page.locator("#alt-test-breakdown table.alt-test-references tbody tr")
    # the judge and five references (three constants, a random draw, a held-out annotator) per alignment
    assert references.count() == 12
    assert references.filter(has_text="held-out annotator").count() == 2  # one per alignment
    page.get_by_text("Per annotator").click()
    rows = page.locator("#alt-test-annotators tbody tr")
    assert rows.count() == 4  # every annotator left out once, the copied one included
    agreement = page.locator("#agreement-table tbody tr").first.locator("td")
    assert agreement.nth(0).inner_text() == "80"  # two system turns asked about in each of 40 dialogues
    assert "[" in agreement.nth(1).inner_text()  # kappa with its interval
    label = work.project.criteria.get().label
    assert page.get_by_role("img", name=f"Reliability diagram: {label}").count() == 1
    assert page.locator("#judge-calibration circle").count() == 1  # every confidence is 0.7: one bin
    assert page.locator("#ppi-table tbody tr").count() == 1  # the mean breakdown score of "all" dialogues
    assert page.locator("#judge-ppi svg line.ppi-interval").count() == 1
    comparison = page.locator("#judges-comparison tbody tr")
    assert comparison.count() == 5 and comparison.nth(1).inner_text().startswith("second-copy")
    assert comparison.nth(2).inner_text().startswith("always-T")
    assert "\tnot informative here\t" in comparison.nth(2).inner_text()  # its verdict column
    assert page.locator("#judges-comparison tr[data-reference=best_trivial]").count() == 1
    assert page.locator("#judges-comparison tr[data-reference=held_out]").count() == 1
    screenshot("judge-report-page")
    page.get_by_label("Alt-test margin epsilon").fill("0.2")
    page.get_by_role("button", name="Recompute").click()
    page.wait_for_url("**epsilon=0.2")
    assert "ε = 0.2, given by hand" in page.locator("#epsilon-source").inner_text()
    for language, words in (("en", "not informative here"), ("ja", "判定できません"), ("zh-hans", "无法判断")):
        page.set_extra_http_headers({"Accept-Language": language})
        page.goto(f"{live_server.url}/projects/judge-page/manage/judges/always-T/report/")
        assert page.locator("#alt-test-verdict").get_attribute("data-verdict") == "not_informative"
        assert words in page.locator("#alt-test-verdict").inner_text()
