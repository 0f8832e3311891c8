"""Invitations by email and single sign-on rules, at the service and the page (Django's test client; the mail in
Django's outbox). The walk through a real SMTP server and browser is tests/browser/test_invitations.py."""

from __future__ import annotations

import re
import time
from unittest import mock
from urllib.parse import unquote

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.exceptions import ValidationError

from annotator.models import Invitation, Membership
from annotator.services.invitations import (
    InvitationInvalid,
    invitation_accept,
    invitation_accept_signed_in,
    invitation_from_token,
    invitation_send,
    invitation_token,
    invitation_withdraw,
)
from annotator.services.sso import sso_groups_parse, sso_memberships_apply
from tests.factories import PASSWORD, project_with_work, user_make

pytestmark = pytest.mark.django_db
BASE = "https://judge.example.org/"


def mailed_token(body: str) -> str:
    return re.search(rf"{re.escape(BASE)}invitations/([^/\s]+)/", body).group(1)


@pytest.fixture
def work():
    return project_with_work("stc3", slug="inv", annotators=1)


def test_invitation_link_serves_once_and_makes_the_member(work):
    invitation = invitation_send(
        project=work.project, actor=work.lead, email="x@example.org", role="lead", base_url=BASE
    )
    assert len(mail.outbox) == 1
    token = mailed_token(mail.outbox[0].body)
    assert invitation_from_token(token) == invitation
    assert "inv-lead invites you" in mail.outbox[0].body and mail.outbox[0].to == ["x@example.org"]
    user, invitation = invitation_accept(token=token, username="xavier", password="a-long-passphrase-9")
    assert user.email == "x@example.org" and invitation.accepted_by == user
    assert Membership.objects.get(project=work.project, user=user).role == "lead"
    with pytest.raises(InvitationInvalid, match="already used"):
        invitation_accept(token=token, username="xavier2", password="a-long-passphrase-9")


def test_expired_tampered_and_withdrawn_links_are_refused(work, settings):
    invitation = invitation_send(
        project=work.project, actor=work.lead, email="y@example.org", role="annotator", base_url=BASE
    )
    token = invitation_token(invitation)
    later = time.time() + settings.INVITATION_MAX_AGE_HOURS * 3600 + 5
    with (
        mock.patch("django.core.signing.time.time", return_value=later),
        pytest.raises(InvitationInvalid, match="expired"),
    ):
        invitation_from_token(token)
    assert invitation_from_token(token) == invitation  # still valid now
    with pytest.raises(InvitationInvalid, match="not valid"):
        invitation_from_token(token[:-2] + ("aa" if not token.endswith("aa") else "bb"))
    assert invitation_withdraw(project=work.project, invitation_id=invitation.pk) == 1
    with pytest.raises(InvitationInvalid, match="withdrawn"):
        invitation_from_token(token)


def test_accepting_checks_the_username_and_password(work):
    invitation = invitation_send(
        project=work.project, actor=work.lead, email="z@example.org", role="annotator", base_url=BASE
    )
    token = invitation_token(invitation)
    with pytest.raises(ValidationError) as taken:
        invitation_accept(token=token, username=work.lead.username.upper(), password="a-long-passphrase-9")
    assert "taken" in str(taken.value.message_dict["username"])
    with pytest.raises(ValidationError) as reserved:  # the members page's list of reserved names
        invitation_accept(token=token, username="Administrator", password="a-long-passphrase-9")
    assert "reserved" in str(reserved.value.message_dict["username"])
    with pytest.raises(ValidationError) as weak:
        invitation_accept(token=token, username="zed", password="123")
    assert "password1" in weak.value.message_dict
    assert Invitation.objects.get(pk=invitation.pk).accepted_at is None  # still open
    assert not get_user_model().objects.filter(username__in=["zed", "Administrator"]).exists()


def test_an_existing_account_joins_only_when_its_owner_accepts_signed_in(work, client):
    known = user_make("known", PASSWORD)
    known.email = "Known@example.org"
    known.save()
    # given an invitation to the address of an existing account
    invitation = invitation_send(
        project=work.project, actor=work.lead, email="known@EXAMPLE.org", role="lead", base_url=BASE
    )
    # then nothing is added before its owner agrees, and the mail is the invitation anyone gets
    assert not Membership.objects.filter(project=work.project, user=known).exists()
    token = mailed_token(mail.outbox[0].body)
    assert invitation_from_token(token) == invitation and "known" not in mail.outbox[0].body
    link = f"/invitations/{token}/"
    # signed out: the page asks to sign in and come back
    page = client.get(link).content.decode()
    assert 'data-state="sign_in"' in page and f"/accounts/login/?next={link}" in unquote(page)
    # another account cannot take the invitation
    other = user_make("other-person", PASSWORD)
    client.force_login(other)
    assert client.get(link).status_code == 403 and client.post(link).status_code == 403
    with pytest.raises(InvitationInvalid, match="another address"):
        invitation_accept_signed_in(token=token, user=other)
    assert not Membership.objects.filter(project=work.project).filter(user__in=[known, other]).exists()
    # the owner, signed in, is asked and joins on accepting
    client.force_login(known)
    assert 'data-state="join"' in client.get(link).content.decode()
    assert not Membership.objects.filter(project=work.project, user=known).exists()
    answer = client.post(link)
    assert answer.status_code == 302 and answer["Location"] == f"/projects/{work.project.slug}/manage/"
    assert Membership.objects.get(project=work.project, user=known).role == "lead"
    assert Invitation.objects.get(pk=invitation.pk).accepted_by == known
    assert client.post(link).status_code == 404  # used
    with pytest.raises(ValidationError):
        invitation_send(project=work.project, actor=work.lead, email="not an address", role="lead", base_url=BASE)


def test_the_members_page_answers_alike_whether_an_address_has_an_account(work, client):
    known = user_make("has-account")
    known.email = "has@example.org"
    known.save()
    client.force_login(work.lead)
    said = []
    for email in ("has@example.org", "nobody@example.org"):
        answer = client.post("/projects/inv/manage/invitations/", {"email": email, "role": "annotator"}, follow=True)
        page = answer.content.decode()
        said.append(re.search(r'<ul class="messages".*?</ul>', page, re.S).group(0).replace(email, "ADDRESS"))
        assert "has-account" not in page  # the account's name appears nowhere
    assert "Sent an invitation to ADDRESS as Annotator." in said[0] and said[0] == said[1]


def test_invitations_are_limited_per_client_and_per_address(work, client, settings):
    settings.INVITATION_RATES = {"client": "4/hour", "address": "2/hour"}
    client.force_login(work.lead)

    def invite(email):
        answer = client.post("/projects/inv/manage/invitations/", {"email": email, "role": "annotator"}, follow=True)
        return "Too many invitations" in answer.content.decode()

    assert [invite("same@example.org") for _ in range(3)] == [False, False, True]  # the address's limit
    assert [invite(f"p{n}@example.org") for n in range(3)] == [False, True, True]  # the client's: 4 counted
    assert Invitation.objects.count() == 3 and len(mail.outbox) == 3


def test_only_the_lead_invites_and_the_page_says_where_console_mail_went(work, client, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    client.force_login(work.annotators[0])
    assert client.post("/projects/inv/manage/invitations/", {"email": "a@example.org"}).status_code == 403
    client.force_login(work.lead)
    answer = client.post(
        "/projects/inv/manage/invitations/", {"email": "a@example.org", "role": "annotator"}, follow=True
    )
    assert "Sent an invitation to a@example.org" in answer.content.decode()
    assert "prints mail on its terminal" not in answer.content.decode()
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    answer = client.post(
        "/projects/inv/manage/invitations/", {"email": "b@example.org", "role": "annotator"}, follow=True
    )
    assert "prints mail on its terminal" in answer.content.decode()
    client.logout()
    page = client.get(f"/invitations/{invitation_token(Invitation.objects.get(email='a@example.org'))}/")
    assert page.status_code == 200 and "You are invited to" in page.content.decode()
    assert client.get("/invitations/nonsense/").status_code == 404


def test_sso_rules_parse_and_give_the_highest_role(work):
    assert sso_groups_parse("staff = lead\n  students =annotator \n") == {"staff": "lead", "students": "annotator"}
    for bad in ("staff", "staff = admin", "= lead"):
        with pytest.raises(ValidationError):
            sso_groups_parse(bad)
    work.project.sso_groups = {"staff": "lead", "students": "annotator"}
    work.project.save()
    person = user_make("sso-person", PASSWORD)
    assert sso_memberships_apply(user=person, groups=["students", "staff"]) == [("inv", "lead")]
    assert Membership.objects.get(project=work.project, user=person).role == "lead"
    assert sso_memberships_apply(user=person, groups=["students"]) == [("inv", "lead")]  # rules never demote
    assert sso_memberships_apply(user=user_make("outsider"), groups=["elsewhere"]) == []


def test_the_lead_saves_sso_rules_on_the_page(work, client, settings):
    client.force_login(work.lead)
    client.post("/projects/inv/manage/sso-groups/", {"sso_groups": "nlp = lead"})
    work.project.refresh_from_db()
    assert work.project.sso_groups == {"nlp": "lead"}
    answer = client.post("/projects/inv/manage/sso-groups/", {"sso_groups": "nlp = boss"}, follow=True)
    assert "group = lead" in answer.content.decode()
    work.project.refresh_from_db()
    assert work.project.sso_groups == {"nlp": "lead"}  # unchanged
