"""Label gold in Chromium: the lead makes a criterion's gold a label on the manage page (and reads what each gold
saved on the seeds' collections there), then a crowd study on a yes/no project whose every question has label gold
runs through the study's pages: participants are given the least settled reply, agreed replies stop at the
minimum, the contested one takes more, the study fills, and the dashboard says per item how many labels are
settled and at what delta."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache

from annotator.handout.selectors.adaptive import AT_MAXIMUM, STABLE, adaptive_status, label_settlement, replay_figures
from annotator.handout.services.adaptive import adaptive_budget_update
from annotator.models import AdaptiveBudget, Assignment, Participant
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_adaptive_budget import with_browser_passwords
from tests.browser.test_annotation import login
from tests.factories import breakdown_project, study_on_new_project

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_lead_chooses_label_gold_and_reads_what_each_gold_saves(live_server, page, screenshot, tmp_path):
    work = with_browser_passwords(breakdown_project(tmp_path, dialogues=4, annotators=1, k=2, assign=False, slug="lg"))
    login(page, live_server, "lg-lead")
    page.goto(f"{live_server.url}/projects/lg/manage/#adaptive-budget")
    section = page.locator("#adaptive-budget")
    section.get_by_label("Adaptive").check()
    section.get_by_label("Annotators per item, at most").fill("30")
    section.locator("#id_gold_breakdown").select_option("label")
    section.get_by_label("Share the majority of breakdown needs").fill("0.5")
    section.get_by_label("Delta (label gold)", exact=False).fill("0.05")
    # the replay figures of both golds, as the bench printed them
    section.locator("#adaptive-figures summary").click()
    label_rows = section.locator("#adaptive-figures-label tbody tr")
    figures = replay_figures()
    assert label_rows.count() == len(figures["label"]) == 6
    first = figures["label"][0]
    cells = label_rows.nth(0).locator("td")
    assert label_rows.nth(0).locator("th").inner_text() == first["collection"]
    assert cells.nth(2).inner_text() == str(first["adaptive"]["labels_per_turn"])
    assert section.locator("#adaptive-figures-distribution tbody tr").count() == len(figures["distribution"])
    section.screenshot(path=str(SCREENSHOTS / "adaptive-label-gold-form.png"))
    section.get_by_role("button", name="Save the budget").click()
    page.wait_for_url("**/manage/#adaptive-budget")
    assert "Saved the budget per item." in page.content()
    saved = AdaptiveBudget.objects.get(project=work.project)
    assert (saved.adaptive, saved.max_k, saved.label_gold, saved.delta) == (True, 30, {"breakdown": 0.5}, 0.05)
    # the form shows what was saved
    assert page.locator("#id_gold_breakdown").input_value() == "label"
    assert page.locator("#id_delta").input_value() == "0.05"


CONTESTED = "dlg-001"  # the reply whose first question the participants split on


def answer(page, external_id: str, n: int) -> None:
    """Every yes/no question answered: "yes" (severe error "no"), except that on the contested reply participants
    take turns on the first question."""
    for name in page.eval_on_selector_all("input[type=radio][name^='j:']", "els => [...new Set(els.map(e => e.name))]"):
        value = "no" if name.startswith("j:severe_error") else "yes"
        if external_id == CONTESTED and name.startswith("j:not_ambiguous"):
            value = "yes" if n % 2 else "no"
        page.locator(f'input[name="{name}"][value="{value}"]').check()


@pytest.mark.eager_tasks(reason="the statistics the dashboard's first visit asks for, computed before the page is read")
def test_a_crowd_study_on_a_label_gold_project(live_server, page, screenshot, tmp_path):
    cache.clear()
    work, study = study_on_new_project(tmp_path, dialogues=3, k=1, items_per_participant=1, slug="lgs")
    with_browser_passwords(work)
    keys = list(work.project.criteria.values_list("key", flat=True))
    adaptive_budget_update(
        project=work.project, adaptive=True, min_k=2, max_k=5, label_gold=dict.fromkeys(keys, 0.0), delta=0.1
    )
    external = dict(work.project.dialogues.values_list("pk", "external_id"))
    assert CONTESTED in external.values()
    given = []
    for n in range(12):
        page.context.clear_cookies()
        page.goto(f"{live_server.url}/study/{study.token}/?PROLIFIC_PID=p{n:02d}&STUDY_ID=s&SESSION_ID=s{n}")
        if page.locator("#consent-text").count() == 0:  # every item settled or at its maximum: the study is full
            assert "Every place is taken" in page.content()
            break
        page.get_by_label(re.compile("I agree to take part")).check()
        page.get_by_role("button", name="Start").click()
        page.wait_for_url(re.compile(r"/items/\d+/$"))
        participant = Participant.objects.get(study=study, external_id=f"p{n:02d}")
        mine = Assignment.objects.get(annotator=participant.user)
        given.append(external[mine.dialogue_id])
        answer(page, external[mine.dialogue_id], n)
        page.get_by_role("button", name="Submit").click()
        page.locator("#completion-code").wait_for()
    else:
        pytest.fail("the study never filled")
    # the minimum first, to every reply; then only the contested one
    assert sorted(given[:6]) == sorted(list(external.values()) * 2)
    assert set(given[6:]) == {CONTESTED}
    status = adaptive_status(work.project)
    for item in status.items:
        if item.external_id == CONTESTED:
            assert item.labels > 2 and item.state in (STABLE, AT_MAXIMUM)
        else:  # two agreeing answers of five: the others cannot overturn them with probability 0.95 (> 1 - 0.1)
            assert item.labels == 2 and item.state == STABLE
    settled = label_settlement(status)
    # the dashboard, per item: its label units settled, and the rule with its delta
    login(page, live_server, "lgs-lead")
    page.goto(f"{live_server.url}/projects/lgs/dashboard/#adaptive-items")
    section = page.locator("#adaptive-items")
    rows = section.locator("#adaptive-table tbody tr")
    shown = {rows.nth(i).locator("td").nth(0).inner_text(): rows.nth(i).locator(".settled-units").inner_text()
             for i in range(rows.count())}  # fmt: skip
    units = sum(found.item_units for found in settled.values())
    done = sum(found.item_settled for found in settled.values())
    assert shown == {item.external_id: f"{done[i]} / {units[i]}" for i, item in enumerate(status.items)}
    assert section.locator(".label-gold").count() == len(keys)
    for key in keys:
        sentence = section.locator(f'.label-gold[data-criterion="{key}"]').inner_text()
        assert f"{settled[key].settled} of {settled[key].units} units settled" in sentence
        assert "probability at most 0.1" in sentence
    screenshot("adaptive-label-gold-dashboard")
