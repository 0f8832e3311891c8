"""The lead's and the participant's pages explain themselves (issue 33): translated settings, levels and
guidelines, plurals, participants offered no password or findability, messages that say what happened,
destructive buttons that look it, a favicon. Real Chromium on a live server."""

from __future__ import annotations

import re
from contextlib import contextmanager

import pytest
from django.utils import timezone

from annotator.models import ImportBatch, ImportStatus, Participant, Project
from annotator.services.projects import membership_add, project_create
from annotator.services.quality_items import quality_item_set
from evaluation.models import Run, RunStatus
from evaluation.services.statistics import statistics_recompute
from tests.browser.assertions import expect
from tests.browser.conftest import SCREENSHOTS
from tests.factories import (
    PASSWORD,
    breakdown_project,
    expected_all,
    project_with_submissions,
    study_on_new_project,
    user_make,
)
from tests.waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@contextmanager
def browsing(browser, *, width: int = 1280, locale: str = "en-US"):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=locale)
    page = context.new_page()
    try:
        yield page
    finally:
        page.goto("about:blank")
        context.close()


def sign_in(page, live_server, username: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"{live_server.url}/")


def shoot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0, name


def test_the_study_settings_form_in_japanese_at_1280_and_390_px(live_server, browser, tmp_path):
    work, study = study_on_new_project(tmp_path, slug="jstudy")
    for width in (1280, 390):
        with browsing(browser, width=width, locale="ja-JP") as page:
            sign_in(page, live_server, work.lead.username)
            page.goto(f"{live_server.url}/projects/{work.project.slug}/manage/studies/{study.pk}/")
            form = page.locator("main form").filter(has=page.locator("#id_consent_text"))
            text = form.inner_text()
            for japanese in ("名前", "同意文", "参加者あたりの項目数", "制限時間（分）", "完了コード", "作業の前に"):
                assert japanese in text, japanese
            for english in ("Consent text", "Completion code", "Shown with the guidelines", "Leave empty"):
                assert english not in text, english
            shoot(page, f"study-settings-ja-{width}px" if width == 1280 else "390px-study-settings-ja")


def test_the_consent_page_shows_the_guidelines_in_the_readers_language_and_plurals(live_server, browser, tmp_path):
    work, study = study_on_new_project(tmp_path, slug="consent", items_per_participant=1, time_limit_minutes=1)
    for width, locale, name in ((1280, "ja-JP", "study-consent-ja-1280px"), (390, "ja-JP", "390px-study-consent-ja")):
        with browsing(browser, width=width, locale=locale) as page:
            page.goto(f"{live_server.url}/study/{study.token}/?PROLIFIC_PID=pid{width}")
            guidelines = page.locator("#study-guidelines").inner_text()
            assert "「はい／いいえ」の質問" in guidelines, guidelines  # the preset's Japanese guidelines
            assert work.project.guidelines[:20] not in guidelines
            shoot(page, name)
    with browsing(browser) as page:
        page.goto(f"{live_server.url}/study/{study.token}/?PROLIFIC_PID=pid-en")
        summary = page.locator("main p.muted").first.inner_text()
        assert "You will judge 1 dialogue of" in summary and "You have 1 minute from" in summary, summary


def test_a_participant_is_offered_no_password_and_no_findability(live_server, browser, tmp_path):
    work, study = study_on_new_project(tmp_path, slug="nopw")
    with browsing(browser) as page:
        page.goto(f"{live_server.url}/study/{study.token}/?PROLIFIC_PID=p-nopw")
        page.get_by_label(re.compile("I agree to take part")).check()
        page.get_by_role("button", name="Start").click()
        page.wait_for_url(re.compile(r"/items/\d+/$"))
        expect(page.get_by_role("link", name="Change password")).to_have_count(0)
        page.goto(f"{live_server.url}/accounts/settings/")
        assert "add me to their projects" not in page.locator("main").inner_text()
        assert "API token" not in page.locator("main").inner_text()
        expect(page.get_by_label("Language of the pages")).to_be_visible()  # what a participant may choose
        assert page.goto(f"{live_server.url}/accounts/password/").status == 404
    assert Participant.objects.filter(study=study, external_id="p-nopw").exists()
    # an annotator with a password still has both
    with browsing(browser) as page:
        sign_in(page, live_server, work.lead.username)
        expect(page.get_by_role("link", name="Change password")).to_be_visible()
        page.goto(f"{live_server.url}/accounts/settings/")
        expect(page.get_by_label(re.compile("add me to their projects"))).to_be_visible()


def test_the_dashboard_names_levels_and_populations_in_japanese_and_the_picker_names_each_language_its_way(
    live_server, browser
):
    work = project_with_submissions("dbdc", slug="dash-ja", annotators=3)
    statistics_recompute(project_id=work.project.pk)
    with browsing(browser, locale="ja-JP") as page:
        sign_in(page, live_server, work.lead.username)
        page.goto(f"{live_server.url}/projects/{work.project.slug}/dashboard/")
        agreement = page.locator("#agreement-table").inner_text()
        assert "(順序尺度)" in agreement and "(ordinal)" not in agreement
        population = page.locator("#population").inner_text()
        assert "（全員）" in population and "(all)" not in population
        options = page.locator("#language-choice option").all_inner_texts()
        assert options == ["English", "日本語", "简体中文"]
        assert "英語" not in " ".join(options)


def test_mixing_controls_and_the_control_accuracy_setting_on_the_quality_page(live_server, browser, tmp_path):
    work = breakdown_project(tmp_path, dialogues=12, annotators=2, k=2, slug="mix")
    d = work.project.dialogues.order_by("position").last()
    quality_item_set(project=work.project, dialogue_id=d.pk, kind="control", answers=expected_all(d, "X"))
    with browsing(browser) as page:
        sign_in(page, live_server, work.lead.username)
        page.goto(f"{live_server.url}/projects/{work.project.slug}/quality/")
        page.locator("#quality-mix button[type=submit], form[action$='/quality/mix/'] button").first.click()
        expect(page.locator(".messages")).to_contain_text("No control item was added: the control rate is zero.")
        page.get_by_label(re.compile("Share of each queue made of control items")).fill("0.1")
        page.get_by_label(re.compile("Flag annotators whose accuracy on control items is below")).fill("0.55")
        page.get_by_role("button", name="Save settings").click()
        expect(page.locator(".messages")).to_contain_text("Saved the quality settings.")
        expect(page.get_by_label(re.compile("Flag annotators whose accuracy"))).to_have_value("0.55")
        page.locator("form[action$='/quality/mix/'] button").first.click()
        expect(page.locator(".messages")).to_contain_text("Added 2 control items to the annotators' queues.")
        # qualification states are words, not codes
        states = page.locator("#qualification-results td.state").all_inner_texts()
        assert states and all(s == "no training required" for s in states), states


@pytest.mark.eager_tasks(reason="the run's scoring job done in the upload's request, whose page then says why")
def test_a_rejected_run_is_said_to_be_rejected_not_scored_by_a_worker(live_server, browser, tmp_path):
    work = project_with_submissions("dbdc", slug="runs-rej", annotators=2)
    bad = tmp_path / "bad.labels.json"
    bad.write_text('{"dialogue-id": "nope", "turns": []}')
    with browsing(browser) as page:
        sign_in(page, live_server, work.lead.username)
        page.goto(f"{live_server.url}/projects/{work.project.slug}/runs/")
        page.get_by_label("Name").fill("broken-run")
        page.locator("input[type=file]").set_input_files(str(bad))
        page.get_by_role("button", name=re.compile("Upload")).click()
        message = page.locator(".messages").inner_text()
        assert "it is scored by a worker" not in message
        assert wait_for(lambda: Run.objects.get(name="broken-run").status == RunStatus.FAILED, timeout=60)
        if "waits for a worker" not in message:  # the embedded default scores within the request
            assert message.startswith("Run broken-run was rejected (") and "Upload a corrected file" in message
        page.reload()
        row = page.locator('tr[data-run="broken-run"]')
        expect(row).to_contain_text("Rejected")
        expect(row.locator(".run-retry")).to_contain_text("helps only after the project's gold data changed")
        # deleting is destructive and looks it
        color = row.locator("button.danger").first.evaluate("b => getComputedStyle(b).color")
        assert color == "rgb(164, 0, 29)", color


def test_a_refused_import_leaves_the_list_and_a_new_breakdown_project_says_why_k_is_30(live_server, browser):
    project = project_create(slug="bd-new", preset="dbdc")
    lead = user_make("bd-lead")
    membership_add(project=project, user=lead, role="lead")
    membership_add(project=project, user=user_make("bd-ann"), role="annotator")
    refused = ImportBatch.objects.create(
        project=project,
        file_names="broken.json",
        status=ImportStatus.FAILED,
        error="expected JSON",
        finished_at=timezone.now(),
    )
    with browsing(browser) as page:
        sign_in(page, live_server, lead.username)
        page.goto(f"{live_server.url}/projects/{project.slug}/manage/")
        explanation = page.locator("#assignment-explanation").inner_text()
        assert "Add 29 more annotators or lower K." in explanation
        assert "in DBDC3 each system utterance was labelled by 30 annotators" in explanation
        remove = page.locator(f'tr[data-batch="{refused.pk}"]').get_by_role(
            "button", name=re.compile("Remove from the list")
        )
        assert "danger" in remove.get_attribute("class")
        remove.click()
        expect(page.locator(".messages")).to_contain_text(
            f"Removed the refused import {refused.pk} (broken.json) from the list."
        )
        expect(page.locator(f'tr[data-batch="{refused.pk}"]')).to_have_count(0)
        # the member's Remove button looks destructive too
        member_remove = page.locator("#members-heading ~ * button", has_text="Remove").first
        assert "danger" in member_remove.get_attribute("class")
    assert not ImportBatch.objects.filter(pk=refused.pk).exists()
    assert Project.objects.get(pk=project.pk).annotators_per_dialogue == 30


def test_the_nlpcc_dashboard_shows_none_of_the_above(live_server, browser):
    work = project_with_submissions("nlpcc", slug="nl-none", annotators=2)
    statistics_recompute(project_id=work.project.pk)
    with browsing(browser) as page:
        sign_in(page, live_server, work.lead.username)
        page.goto(f"{live_server.url}/projects/{work.project.slug}/dashboard/")
        table = page.locator("#nlpcc-heading ~ table")
        expect(table.locator("thead")).to_contain_text("None of the above")
        # everyone answered yes (the first value) to every question: none of them said no to all nine
        cells = table.locator('td[data-field="none_of_the_above"]').all_inner_texts()
        assert cells and all(c == "0.0%" for c in cells), cells


def test_favicon_is_served_and_linked(live_server, browser):
    with browsing(browser) as page:
        answer = page.goto(f"{live_server.url}/favicon.ico")
        assert answer.status == 200 and answer.headers["content-type"] == "image/x-icon"
        page.goto(f"{live_server.url}/accounts/login/")
        href = page.locator('link[rel="icon"]').get_attribute("href")
        assert page.request.get(f"{live_server.url}{href}").status == 200


def test_a_study_with_one_left_over_item_says_it_in_the_singular(live_server, browser, tmp_path):
    work, study = study_on_new_project(tmp_path, slug="left", dialogues=3, k=1, items_per_participant=2)
    with browsing(browser) as page:
        sign_in(page, live_server, work.lead.username)
        page.goto(f"{live_server.url}/projects/{work.project.slug}/manage/studies/{study.pk}/")
        places = page.locator("#places").inner_text()
        assert "1 item does not fill a whole place: it goes to the next participant as a shorter set." in places
        assert "item do not fill" not in places
