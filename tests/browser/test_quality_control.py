"""In Chromium: a lead marks a training and a control item, an annotator qualifies with feedback, and the lead
reads the reliability panel (heat map), excludes an annotator and adjudicates a disputed unit."""

from __future__ import annotations

import pytest

from annotator.models import Adjudication, AnnotatorExclusion, Assignment, AssignmentStatus, QualityItem
from annotator.services.projects import membership_add
from annotator.services.qualification import qualification_admit
from tests.batched import tasks_after
from tests.browser.conftest import SCREENSHOTS, live_figures_settled
from tests.browser.test_annotation import PASSWORD, login
from tests.factories import breakdown_project, submit_all, user_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.eager_tasks(reason="the statistics and re-scoring each step asks for, done before its page is read")
def test_controls_qualification_reliability_exclusion_and_adjudication(
    live_server, page, screenshot, tmp_path, monkeypatch
):
    work = breakdown_project(tmp_path, dialogues=14, annotators=1, k=1, assign=False, slug="qcb")
    for person in (work.lead, *work.annotators):
        person.set_password(PASSWORD)
        person.save()
    helpers = [user_make(f"qcb-helper{i}") for i in range(3)]
    for person in helpers:
        membership_add(project=work.project, user=person, role="annotator")
    work.project.annotators_per_dialogue = 4
    work.project.save()
    annotator = work.annotators[0]
    training, control = work.project.dialogues.order_by("position")[:2]

    # the lead marks a training item and a control item on the quality page, and sets the rates
    login(page, live_server, work.lead.username)
    for dialogue, kind in ((training, "training"), (control, "control")):
        page.goto(f"{live_server.url}/projects/qcb/quality/")
        page.select_option("#id_dialogue", label=dialogue.external_id)
        page.get_by_role("button", name="Enter expected answers").click()
        page.select_option("#id_kind", value=kind)
        page.fill("#id_explanation", "The system ignores what the user said: a breakdown.")
        for unit in (2, 4):
            page.select_option(f'select[name="e:breakdown:{unit}"]', value="X")
        page.fill("#t-breakdown", "0")
        page.get_by_role("button", name="Save expected answers").click()
        page.wait_for_url(f"{live_server.url}/projects/qcb/quality/")
    page.fill("#id_control_rate", "0.2")
    page.fill("#id_pass_mark", "0.75")
    page.get_by_role("button", name="Save settings").click()
    page.wait_for_url(f"{live_server.url}/projects/qcb/quality/")
    page.goto(f"{live_server.url}/projects/qcb/manage/")
    page.get_by_role("button", name="Run the assignment").click()
    page.wait_for_load_state("networkidle")
    screenshot("quality-lead-items")
    assert QualityItem.objects.get(dialogue=training).kind == "training"
    assert QualityItem.objects.get(dialogue=control).answers.count() == 2

    # the annotator sees only the training item, answers it, reads the feedback, and the queue opens
    page.context.clear_cookies()
    login(page, live_server, annotator.username)
    page.goto(f"{live_server.url}/projects/qcb/queue/")
    assert page.locator("#qualification-state").get_attribute("data-state") == "training"
    screenshot("quality-annotator-training-queue")
    page.locator("#training-items a").first.click()
    for unit in (2, 4):
        page.locator(f'input[name="j:breakdown:{unit}"][value="X"]').check()
    page.get_by_role("button", name="Submit").click()
    page.wait_for_url(f"{live_server.url}/items/*/feedback/")
    assert page.locator("#feedback tbody tr").count() == 2 and "✓ right" in page.locator("#feedback").inner_text()
    assert "ignores what the user said" in page.locator("#explanation").inner_text()
    screenshot("quality-annotator-feedback")
    page.get_by_role("link", name="Back to your queue").click()
    assert page.locator("#qualification-state").get_attribute("data-state") == "passed"
    assert page.locator("table.table").last.locator("tbody tr").count() >= 2  # the real items are listed

    # everyone finishes; one helper answers at random, another differs from the rest on some units (so
    # units stay disputed once the random one is excluded)
    import numpy as np

    rng = np.random.default_rng(5)

    def careful(a, k, u, differs=False):
        if a.dialogue_id == control.pk:
            return "X"
        if differs and u == 4 and a.dialogue_id % 2:
            return "T"
        return "OTX"[(a.dialogue_id + u) % 3 if u == 2 else 0]

    for person in helpers:  # the helpers were let in by the lead (they answer real items without training)
        qualification_admit(project=work.project, username=person.username, admitted_by=work.lead, note="helper")
    with tasks_after(monkeypatch):  # the statistics computed once for the submissions, not after each
        for i, person in enumerate([annotator, *helpers]):
            submit_all(person, work.project, (lambda a, k, u: "OTX"[rng.integers(3)]) if i == 3 else (
                lambda a, k, u, differs=(i == 1): careful(a, k, u, differs)
            ), seconds=40 if i != 3 else 2)  # fmt: skip
    assert Assignment.objects.filter(dialogue__project=work.project, status=AssignmentStatus.SUBMITTED).count() > 20

    # the lead reads the reliability panel and the kappa heat map
    page.context.clear_cookies()
    login(page, live_server, work.lead.username)
    live_figures_settled(page, live_server.url, "qcb")
    page.goto(f"{live_server.url}/projects/qcb/dashboard/")
    # tasks run in-process here (no broker), where the models are estimated when the lead asks
    assert "not estimated yet" in page.locator("#reliability-table").inner_text()
    # (the estimate runs before the page answers: minutes of EM on a loaded machine)
    page.get_by_role("button", name="Estimate the models now").click(timeout=180_000)
    page.wait_for_url(f"{live_server.url}/projects/qcb/dashboard/#reliability")
    assert page.locator("#models-form").count() == 0
    panel = page.locator("#reliability")
    assert panel.locator("#reliability-table tbody tr").count() == 4
    spam_row = panel.locator('tr[data-annotator="qcb-helper2"]')
    assert "too fast" in spam_row.locator(".flags").inner_text()
    cells = [panel.locator(f'tr[data-annotator="{n}"] td').nth(3).inner_text() for n in ("qcb-ann1", "qcb-helper2")]
    assert cells[0].startswith("100%") and cells[1] != "–"  # control accuracy, the random helper's too
    assert "dawid-skene" in spam_row.locator("td").nth(2).inner_text()
    assert panel.locator("canvas.kappa-heatmap").count() == 1
    assert panel.locator(".kappa-table tbody tr").count() == 4
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    panel.locator("#reliability-table").screenshot(path=str(SCREENSHOTS / "reliability-panel.png"))
    panel.locator("figure.kappa").first.screenshot(path=str(SCREENSHOTS / "kappa-heatmap.png"))
    screenshot("reliability-dashboard")

    # the lead excludes the random helper with a reason; the statistics now say so
    spam_row.locator('input[name="reason"]').fill("answers at random, 2 s per item")
    spam_row.get_by_role("button", name="Exclude").click()
    page.wait_for_load_state("networkidle")
    assert AnnotatorExclusion.objects.get(user=helpers[2]).reason == "answers at random, 2 s per item"
    page.reload()
    assert "qcb-helper2" in page.locator("#population").inner_text()
    assert page.locator("#reliability-table tbody tr").count() == 3
    assert "answers at random" in page.locator("#excluded-list").inner_text()

    # and adjudicates the most disputed unit
    page.goto(f"{live_server.url}/projects/qcb/adjudication/")
    first = page.locator("#disputed-units tbody tr").first
    first.get_by_role("link").click()
    page.locator('input[name="value"][value="T"]').check()
    page.fill("#id_note", "The reply is odd but the user can go on.")
    page.get_by_role("button", name="Save the final label").click()
    page.wait_for_url(f"{live_server.url}/projects/qcb/adjudication/")
    assert "T" in page.locator("#disputed-units tbody tr").first.locator(".final").inner_text()
    screenshot("adjudication-list")
    assert Adjudication.objects.get().note == "The reply is odd but the user can go on."
