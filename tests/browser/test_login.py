"""Logging in and seeing one's projects, in a real browser."""

import pytest

from annotator.services.demo import DEMO_ANNOTATORS, demo_load

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_annotator_logs_in_sees_projects_and_logs_out(live_server, page, screenshot):
    demo_load()
    username, password = DEMO_ANNOTATORS[0]
    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url  # anonymous users are sent to the login page
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("wrong password")
    page.get_by_role("button", name="Log in").click()
    assert page.get_by_role("alert").inner_text().startswith("Your username and password did not match")
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")
    rows = page.locator("tbody tr")
    assert rows.count() == 6  # the six demo projects, one per preset
    assert "demo-stc3" in page.locator("tbody").inner_text()
    screenshot("home-projects")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/accounts/login/")


def test_imported_text_is_inert_in_the_admin_list(live_server, page, django_user_model):
    import tempfile
    from pathlib import Path

    from annotator.services.imports import dialogues_import
    from annotator.services.projects import project_create
    from tests.fixtures.collections import stc3_dialogues, write_json

    project = project_create(slug="xss", preset="stc3")
    with tempfile.TemporaryDirectory() as tmp:
        dialogues_import(project=project, paths=[write_json(Path(tmp) / "s.json", stc3_dialogues())])
    django_user_model.objects.create_superuser("root", password="root-pass-123")
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "root-pass-123")
    page.click("input[type=submit]")
    dialogue_id = project.dialogues.get(external_id="d2").pk
    page.goto(f"{live_server.url}/admin/annotator/dialogue/{dialogue_id}/change/")
    assert "<script>alert(1)</script>" in page.content().replace("&lt;", "<").replace("&gt;", ">")
    assert dialogs == []  # nothing ran
