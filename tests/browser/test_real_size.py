"""Pages at the real collections' size, in Chromium: the DBDC3 English dashboard (561 annotators, imported from
../shared/data) a page of annotators at a time with the flagged first, sortable, and its kappa heat map with a
numbered key, a colour legend and values on hover; "Mark a dialogue" past the first 1,000 dialogues; and an
import on runserver as the README starts it (no broker) running in the background with its progress shown.
Screenshots at 1280 px and 390 px."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from annotator.models import Dialogue, ImportBatch
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_create
from evaluation.services.statistics import statistics_recompute
from tests.browser.assertions import expect
from tests.browser.conftest import SCREENSHOTS, live_figures_settled
from tests.browser.test_annotation import PASSWORD, login
from tests.conftest import database_url
from tests.factories import breakdown_lines, project_with_work
from tests.live_servers import running, start_runserver

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIDTHS = (1280, 390)


def shoot(page, name: str, **options) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), **options)


def narrow_and_wide(browser):
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900})
        yield width, context.new_page()
        context.close()


@pytest.mark.shared_data
def test_the_dbdc3_english_dashboard_pages_its_561_annotators_with_the_flagged_first(
    browser, live_server, dbdc_dir, django_user_model
):
    project = project_create(slug="dbdc3-en", preset="dbdc", name="DBDC3 English")
    dialogues_import(project=project, paths=[dbdc_dir / "eval"])
    django_user_model.objects.create_user(username="lead", password=PASSWORD)
    membership_add(project=project, user=django_user_model.objects.get(username="lead"), role="lead")
    payload = statistics_recompute(project_id=project.pk).payload
    reliability = payload["reliability"]["annotators"]
    flagged = sum(bool(r["flags"]) for r in reliability.values())
    assert len(reliability) == 561 and 0 < flagged < 50
    for width, page in narrow_and_wide(browser):
        login(page, live_server, "lead")
        live_figures_settled(page, live_server.url, "dbdc3-en")
        page.goto(f"{live_server.url}/projects/dbdc3-en/dashboard/")
        table = page.locator("#annotator-table tbody tr")
        expect(table).to_have_count(50)
        rows = page.locator("#annotator-table tbody tr")
        classes = [rows.nth(i).get_attribute("class") or "" for i in range(50)]
        assert classes == ["flagged"] * flagged + [""] * (50 - flagged)  # the flagged first
        count = " ".join(page.locator("#annotators-count").inner_text().split())
        assert count.startswith(f"561 annotators, {flagged} flagged") and "showing 1–50" in count
        assert page.locator("#reliability-table tbody tr").count() == 50
        assert "dbdc3-en.imported." not in page.locator("#annotator-table").inner_text()
        shoot(page, f"dashboard-real-size-{width}", full_page=True)
        page_height = page.evaluate("document.documentElement.scrollHeight")
        sections = page.evaluate(
            "Array.from(document.querySelectorAll('main section, main figure, main table'))"
            ".map(e => (e.id || e.className || e.tagName) + ':' + e.offsetHeight).join(' ')"
        )
        assert page_height < 20000, (page_height, sections)  # was 109,000 px with every annotator listed
        # the heat map: numbered axes with a key, a legend, the pair and value on hover
        figure = page.locator("figure.kappa").first
        expect(figure.locator(".kappa-names li")).to_have_count(30)
        assert figure.locator(".kappa-legend-bar").is_visible()
        assert "−1 (red" in figure.locator(".kappa-legend-text").inner_text()
        canvas = figure.locator("canvas.kappa-heatmap")
        canvas.scroll_into_view_if_needed()
        box = canvas.bounding_box()
        scale = box["width"] / 480
        cell = max(8, min(40, (480 - 26) // 30)) * scale
        page.mouse.move(box["x"] + 26 * scale + 2.5 * cell, box["y"] + 26 * scale + 0.5 * cell)  # row 1, column 3
        hover = figure.locator(".kappa-hover").inner_text()
        names = figure.locator(".kappa-names li").all_inner_texts()
        value = figure.locator(".kappa-table tbody tr").nth(0).locator("td").nth(2).inner_text()
        assert hover == f"1 {names[0]} × 3 {names[2]}: κ = {value}", hover
        title = figure.locator(".kappa-table tbody tr").nth(0).locator("td").nth(2).get_attribute("title")
        assert title.startswith(f"1 {names[0]} × 3 {names[2]}: {value} [")  # then its interval and method
        assert "units shared" in title
        shoot(page, f"dashboard-real-size-{width}", full_page=True)
        figure.screenshot(path=str(SCREENSHOTS / f"kappa-heatmap-real-size-{width}.png"))
        # sort by judgements (a header link; the page works without its script), then the next page
        page.locator("#annotator-table thead").get_by_role("link", name="Judgements").click()
        page.wait_for_url("**/dashboard/?sort=judgements#annotators-heading")
        expect(page.locator("#annotator-table th[aria-sort=descending]")).to_have_text("Judgements")
        shown = [int(t) for t in page.locator("#annotator-table tbody tr td:nth-child(3)").all_inner_texts()]
        assert shown == sorted(shown, reverse=True) and shown[0] == max(r["judgements"] for r in reliability.values())
        page.locator("#annotators-pager").get_by_role("link", name="Next →").click()
        page.wait_for_url("**/dashboard/?sort=judgements&page=2#annotators-heading")
        more = [int(t) for t in page.locator("#annotator-table tbody tr td:nth-child(3)").all_inner_texts()]
        assert len(more) == 50 and max(more) <= min(shown)
        # find one annotator by name
        name = names[4]
        page.get_by_label("Name contains").fill(name)
        page.get_by_role("button", name="Show").click()
        expect(page.locator("#annotator-table tbody tr")).to_have_count(1)
        assert page.locator("#annotator-table tbody th").inner_text() == name
        if width == 390:
            shoot(page, f"dashboard-annotator-search-{width}")


def test_mark_a_dialogue_finds_one_past_the_first_thousand(browser, live_server, tmp_path):
    work = project_with_work(
        "dbdc", slug="qc-big", annotators=0, k=3, assign=False, paths=[breakdown_lines(tmp_path / "d.jsonl", 1200, "d")]
    )
    work.lead.set_password(PASSWORD)
    work.lead.save()
    for width, page in narrow_and_wide(browser):
        login(page, live_server, work.lead.username)
        page.goto(f"{live_server.url}/projects/qc-big/quality/")
        expect(page.locator("#id_dialogue option")).to_have_count(50)
        assert "1200 dialogues not marked yet" in page.locator("#quality-find-count").inner_text()
        page.get_by_label("Dialogue id contains").fill("d1199")
        page.get_by_role("button", name="Find").click()
        expect(page.locator("#id_dialogue option")).to_have_count(1)
        shoot(page, f"quality-mark-a-dialogue-{width}", full_page=True)
        page.get_by_role("button", name="Enter expected answers").click()
        page.wait_for_url(f"**/quality/items/{Dialogue.objects.get(project=work.project, external_id='d1199').pk}/")
        page.goto(f"{live_server.url}/projects/qc-big/quality/?page=24#mark-heading")
        assert page.locator("#id_dialogue option").all_inner_texts() == [f"d{i}" for i in range(1150, 1200)]
        expect(page.locator("#quality-pager")).to_contain_text("Page 24 of 24")


@pytest.mark.shared_data
def test_an_import_on_the_embedded_default_runs_on_its_worker_with_progress(
    browser, stc3_dir, django_user_model, tmp_path, monkeypatch
):
    for name in ("CELERY_BROKER_URL", "REDIS_URL", "CELERY_RESULT_BACKEND"):  # the embedded default: no server
        monkeypatch.delenv(name, raising=False)
    project = project_create(slug="stc3-en", preset="stc3", name="STC-3 English")
    # runserver's settings (config.settings.local) check passwords with PBKDF2, not the test settings' hasher
    lead = django_user_model.objects.create(username="lead", password=PBKDF2PasswordHasher().encode(PASSWORD, "s1"))
    membership_add(project=project, user=lead, role="lead")
    # runserver and its worker on the filesystem broker, as ./scripts/serve.sh starts them
    with running(start_runserver(database_url(), tmp_path / "runserver.log", with_worker=True)) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        login(page, server, "lead")
        page.goto(f"{server.url}/projects/stc3-en/manage/")
        page.get_by_label("File").set_input_files(str(stc3_dir / "train_data_en.json"))
        started = time.monotonic()
        page.get_by_role("button", name="Import").click()
        page.wait_for_url("**/projects/stc3-en/manage/?import=*")
        answered = time.monotonic() - started
        seen: list[tuple[str, str]] = []
        shot = False
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            job = page.locator("#import-job")
            if job.count() and job.get_attribute("data-finished") == "true":
                break
            if job.count():
                state = (job.get_attribute("data-status") or "", page.locator("#import-message").inner_text())
                if not seen or seen[-1] != state:
                    seen.append(state)
                if not shot and state[1].startswith("Importing") and " 0 of " not in state[1]:
                    shoot(page, "embedded-import-progress-1280", full_page=True)
                    shot = True
            page.wait_for_timeout(250)
        batch = ImportBatch.objects.get(project=project)
        assert batch.status == "done" and batch.dialogues_written == 1672, (batch.status, batch.error, seen)
        assert "running" in [s[0] for s in seen], seen  # the page showed the import while it ran
        assert any(s[1].startswith("Checking train_data_en.json") or s[1].startswith("Importing") for s in seen), seen
        expect(page.locator("#import-message")).to_have_text(
            "Imported 1,672 dialogues (226,727 judgements) from train_data_en.json."
        )
        shoot(page, "embedded-import-done-1280", full_page=True)
        context.close()
    assert answered < 60  # the upload's request came back without waiting for the import (about a minute before)
