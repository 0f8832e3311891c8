"""Invitations and password resets by email, walked in Chromium against gunicorn (tests/live_servers.py) that sends
through a real SMTP server process on loopback (aiosmtpd, tests/mail_server.py): the lead invites, the message
arrives, its one-time link is followed, the person chooses a username and password and lands in the project; the
link then refuses a second use. A forgotten password is reset from the login page the same way."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotator.models import Invitation, Membership
from tests.conftest import database_url
from tests.factories import PASSWORD, project_with_work
from tests.live_servers import running, start_gunicorn
from tests.mail_server import body, link_in, smtp_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, url: str, username: str, password: str) -> None:
    page.goto(f"{url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{url}/")


def test_invited_person_sets_up_their_account_from_the_mailed_link(tmp_path, page, screenshot):
    work = project_with_work("stc3", slug="invited", annotators=1)
    with (
        smtp_server(tmp_path) as mail,
        running(start_gunicorn(database_url(), tmp_path / "gunicorn.log", production=False, **mail.settings)) as server,
    ):
        sign_in(page, server.url, work.lead.username, PASSWORD)
        page.goto(f"{server.url}/projects/invited/manage/")
        page.get_by_label("Email address").fill("newcomer@example.org")
        page.get_by_label("Role", exact=True).select_option("annotator")
        page.get_by_role("button", name="Send invitation").click()
        assert "Sent an invitation to newcomer@example.org as Annotator." in page.locator(".messages").inner_text()
        assert "newcomer@example.org" in page.locator("#open-invitations").inner_text()
        screenshot("invitation-sent")
        page.context.clear_cookies()

        message = mail.message_to("newcomer@example.org")
        assert message["From"] == "judgements@example.org"
        assert "invites you to the project" in body(message) and "as Annotator" in body(message)
        link = link_in(message)
        assert link.startswith(f"{server.url}/invitations/")
        page.goto(link)
        assert "You are invited to" in page.locator("main").inner_text()
        page.get_by_label("Username").fill("newcomer")
        page.locator("#id_password1").fill("a-good-passphrase-42")
        page.locator("#id_password2").fill("a-good-passphrase-42")
        screenshot("invitation-accept")
        page.get_by_role("button", name="Create my account").click()
        page.wait_for_url(f"{server.url}/projects/invited/queue/")
        assert "Welcome, newcomer" in page.locator(".messages").inner_text()
        screenshot("invitation-landed-in-queue")

        newcomer = get_user_model().objects.get(username="newcomer")
        assert newcomer.email == "newcomer@example.org" and newcomer.check_password("a-good-passphrase-42")
        assert Membership.objects.get(project=work.project, user=newcomer).role == "annotator"
        assert Invitation.objects.get(email="newcomer@example.org").accepted_by == newcomer

        page.context.clear_cookies()
        second = page.goto(link)  # single use
        assert second.status == 404
        assert "already used" in page.get_by_role("alert").inner_text()
        screenshot("invitation-used-twice")


def test_an_existing_account_joins_when_its_owner_signs_in_and_accepts(tmp_path, page, screenshot):
    work = project_with_work("stc3", slug="existing", annotators=1)
    known = get_user_model().objects.create_user("known", email="Known@Example.org", password=PASSWORD)
    with (
        smtp_server(tmp_path) as mail,
        running(start_gunicorn(database_url(), tmp_path / "gunicorn.log", production=False, **mail.settings)) as server,
    ):
        session = server.login(work.lead.username, PASSWORD)
        answer = server.post_form(
            session, "/projects/existing/manage/invitations/", {"email": "known@example.org", "role": "lead"},
            "/projects/existing/manage/",
        )  # fmt: skip
        assert answer.status_code == 302
        # nothing is added before the owner agrees
        assert not Membership.objects.filter(project=work.project, user=known).exists()
        link = link_in(mail.message_to("Known@Example.org"))
        assert link.startswith(f"{server.url}/invitations/")
        # the owner opens the link, is asked to sign in, comes back and accepts
        page.goto(link)
        page.get_by_role("link", name="Sign in to accept").click()
        page.get_by_label("Username").fill("known")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(link)
        assert "with your account known" in page.locator("#invitation-account").inner_text()
        screenshot("invitation-existing-account")
        assert not Membership.objects.filter(project=work.project, user=known).exists()
        page.get_by_role("button", name="Join the project").click()
        page.wait_for_url(f"{server.url}/projects/existing/manage/")
        assert "Welcome, known" in page.locator(".messages").inner_text()
    assert Membership.objects.get(project=work.project, user=known).role == "lead"
    assert Invitation.objects.get().accepted_by == known


def test_forgotten_password_is_reset_from_the_mailed_link(tmp_path, page, screenshot):
    get_user_model().objects.create_user("forgetful", email="forgetful@example.org", password="the-old-one-123")
    with (
        smtp_server(tmp_path) as mail,
        running(start_gunicorn(database_url(), tmp_path / "gunicorn.log", production=False, **mail.settings)) as server,
    ):
        page.goto(f"{server.url}/accounts/login/")
        page.get_by_role("link", name="Forgot your password?").click()
        page.get_by_label("Email").fill("forgetful@example.org")
        screenshot("password-reset-ask")
        page.get_by_role("button", name="Send the link").click()
        assert "Check your email" in page.locator("h1").inner_text()

        message = mail.message_to("forgetful@example.org")
        assert "forgetful" in body(message)
        link = link_in(message)
        page.goto(link)
        page.locator("#id_new_password1").fill("a-brand-new-secret-77")
        page.locator("#id_new_password2").fill("a-brand-new-secret-77")
        screenshot("password-reset-choose")
        page.get_by_role("button", name="Save the new password").click()
        assert "Your new password is saved." in page.locator("main").inner_text()
        screenshot("password-reset-done")
        sign_in(page, server.url, "forgetful", "a-brand-new-secret-77")

        page.context.clear_cookies()
        page.goto(link)  # the link served once
        assert "not valid any more" in page.get_by_role("alert").inner_text()
