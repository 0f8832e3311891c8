"""A lead in real Chromium adds a judge from a file on the judges page, sees a wrong file refused with its
place named, and removes the judge after confirming."""

from __future__ import annotations

import json

import pytest

from annotator.models import Judge
from tests.factories import PASSWORD, project_with_submissions

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, url, username):
    page.goto(f"{url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{url}/")


def test_a_lead_adds_and_removes_a_judge(live_server, page, screenshot, tmp_path):
    work = project_with_submissions("stc3", slug="judges-browser")
    ids = list(work.project.dialogues.values_list("external_id", flat=True))
    good = tmp_path / "gpt.jsonl"
    good.write_text(
        "".join(json.dumps({"id": i, "labels": [{"criterion": "A", "value": "1"}]}) + "\n" for i in ids),
        encoding="utf-8",
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "nowhere", "labels": [{"criterion": "A", "value": "1"}]}) + "\n")
    sign_in(page, live_server.url, work.lead.username)
    page.goto(f"{live_server.url}/projects/judges-browser/manage/")
    page.get_by_role("link", name="Judges").click()
    page.get_by_label("Name", exact=True).fill("gpt")
    page.get_by_label("The judge's labels").set_input_files(str(bad))
    page.get_by_role("button", name="Add the judge").click()
    error = page.locator("#judge-error").inner_text()
    assert "bad.jsonl" in error and "nowhere" in error and "import the dialogues" in error
    assert not Judge.objects.exists()
    page.get_by_label("The judge's labels").set_input_files(str(good))
    page.get_by_role("button", name="Add the judge").click()
    row = page.locator("#judges tbody tr")
    assert row.count() == 1
    assert row.locator("td").nth(0).inner_text().startswith("gpt")
    assert row.locator("td.num").nth(0).inner_text() == str(len(ids))
    screenshot("judges-page")
    row.get_by_role("button", name="Remove").click()
    page.locator("dialog").get_by_role("button", name="Remove").click()
    page.locator("#no-judges").wait_for()
    assert not Judge.objects.exists()
