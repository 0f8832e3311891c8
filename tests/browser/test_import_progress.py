"""Uploading the STC-3 English training set through the manage page: the button is disabled while the
file uploads, a real Celery worker imports it on PostgreSQL, and the page shows the job's progress
(dialogues read, dialogues and rows written) until the new batch is listed. Screenshots at 1280 px."""

from __future__ import annotations

import time

import pytest

from annotator.models import Dialogue, ImportBatch, Judgement
from annotator.services.projects import membership_add, project_create
from tests.browser.assertions import expect
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_annotation import PASSWORD, login

pytestmark = [
    pytest.mark.browser,
    pytest.mark.worker,
    pytest.mark.shared_data,
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres(reason="a Celery worker in another process imports through COPY into the shared database"),
]


@pytest.fixture
def wide_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def shoot(page, name: str, **options) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), **options)


def test_uploading_the_stc3_english_file_shows_progress_and_completes_through_a_worker(
    celery_worker_process, live_server, wide_page, stc3_dir, django_user_model
):
    page = wide_page
    project = project_create(slug="stc3-en", preset="stc3", name="STC-3 English")
    lead = django_user_model.objects.create_user(username="lead", password=PASSWORD)
    membership_add(project=project, user=lead, role="lead")
    login(page, live_server, "lead")
    page.goto(f"{live_server.url}/projects/stc3-en/manage/")
    page.get_by_label("File").set_input_files(str(stc3_dir / "train_data_en.json"))
    # record what the button looks like once the upload has started (kept across the navigation)
    page.evaluate(
        """() => {
          const button = document.getElementById("upload-button");
          new MutationObserver(() => sessionStorage.setItem("upload-button", JSON.stringify({
            disabled: button.disabled, text: button.textContent,
            note: !document.getElementById("upload-note").hidden,
          }))).observe(button, {attributes: true, childList: true, subtree: true});
        }"""
    )
    page.get_by_role("button", name="Import").click()
    page.wait_for_url("**/projects/stc3-en/manage/?import=*")
    assert page.evaluate("JSON.parse(sessionStorage.getItem('upload-button'))") == {
        "disabled": True,
        "text": "Uploading…",
        "note": True,
    }
    # the worker imports it while the page polls the job
    batch = ImportBatch.objects.get(project=project)
    seen: list[tuple[str, ...]] = []
    row = f'#import-batches tr[data-batch="{batch.pk}"]'
    shot = False
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        job = page.locator("#import-job")
        if job.count() and job.get_attribute("data-finished") == "true":
            break
        if job.count():
            state = (
                job.get_attribute("data-status") or "",
                page.locator("#import-message").inner_text(),
                page.locator('[data-count="dialogues_written"]').inner_text(),
                page.locator('[data-count="rows_written"]').inner_text(),
                page.locator(f'{row} [data-field="dialogues_written"]').inner_text(),
            )
            if not seen or seen[-1] != state:
                seen.append(state)
            if not shot and state[1].startswith("Importing") and state[2] not in ("0", "…"):
                page.locator("#upload-heading").scroll_into_view_if_needed()
                shoot(page, "upload-progress", full_page=True)
                shot = True
        page.wait_for_timeout(250)
    # then the page went through the job's phases, with counts, before it finished
    statuses = [s[0] for s in seen]
    # waiting, then running (and "done" may be read just before the finished mark: the two are read one by one)
    assert statuses == sorted(statuses, key=["pending", "running", "done"].index), seen
    assert "running" in statuses, seen
    writing = [s for s in seen if s[1].startswith("Importing train_data_en.json: ")]
    assert writing and shot, seen
    assert any(" of 1,672 dialogues written" in s[1] for s in writing)
    assert any(0 < int(s[2].replace(",", "")) < 1672 for s in writing), seen
    # the batch's row in the list of imports followed the job while it ran
    assert any(s[4] == s[2] != "0" for s in writing), seen
    # the page reloads with the batch listed, and the database holds exactly the file
    expect(page.locator(f"{row} td").nth(3)).to_have_text("stc3")  # rendered by the reloaded page
    assert page.locator("#import-message").inner_text() == (
        "Imported 1,672 dialogues (226,727 judgements) from train_data_en.json."
    )
    batch.refresh_from_db()
    assert batch.status == "done" and batch.created_by == lead and batch.source is None
    assert (batch.dialogues_written, batch.judgements, batch.format) == (1672, 226727, "stc3")
    assert Dialogue.objects.filter(project=project, batch=batch).count() == 1672
    assert Judgement.objects.filter(assignment__dialogue__project=project).count() == 226727
    cells = page.locator(f"{row} td").all_inner_texts()
    assert cells[1:7] == ["lead", "train_data_en.json", "stc3", "Imported", "1,672", "226,727"]
    assert not page.locator("#upload-button").is_disabled()
    page.locator("#imports").scroll_into_view_if_needed()
    shoot(page, "import-batches", full_page=True)
