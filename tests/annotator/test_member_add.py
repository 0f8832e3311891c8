"""Leads add existing accounts only by the exact username of someone who agreed to be found (staff:
any account), learn nothing about the others, and new accounts get valid usernames."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotator.models import AccountSettings, Membership
from annotator.services.accounts import NOT_ADDABLE
from tests.factories import PASSWORD, project_with_work

pytestmark = pytest.mark.django_db


@pytest.fixture
def lead_page():
    work = project_with_work("stc3", slug="add", annotators=1, assign=False)
    client = Client()
    client.force_login(work.lead)
    return work, client


def add(client, username, password=""):
    return client.post(
        reverse("lead_member_add", args=["add"]), {"username": username, "password": password, "role": "annotator"}
    )


def members(work) -> set[str]:
    return set(Membership.objects.filter(project=work.project, imported=False).values_list("user__username", flat=True))


def test_accounts_that_did_not_agree_cannot_be_added_and_look_like_no_account(lead_page, django_user_model):
    work, client = lead_page
    django_user_model.objects.create_superuser("root", password=PASSWORD)
    other = project_with_work("dbdc", slug="other", annotators=1, assign=False)
    refused = {name: add(client, name) for name in ("root", other.lead.username, "nobody-has-this-name")}
    for name, response in refused.items():
        assert response.status_code == 400, name
        assert NOT_ADDABLE in response.content.decode().replace("&#x27;", "'"), name
    # the same errors whether the account exists or not
    errors = {re.findall(r'<ul class="errorlist"[^>]*>.*?</ul>', r.content.decode(), re.S)[0] for r in refused.values()}
    assert len(errors) == 1
    assert members(work) == {"add-lead", "add-ann1"}


def test_an_account_whose_owner_agreed_is_added_by_exact_username(lead_page, make_user):
    work, client = lead_page
    volunteer = make_user("volunteer")
    page = Client()
    page.force_login(volunteer)
    assert page.post(reverse("account_settings"), {"findable_by_leads": "on"}).status_code == 302
    assert AccountSettings.objects.get(user=volunteer).findable_by_leads
    assert add(client, "VOLUNTEER").status_code == 400  # exact usernames only
    assert add(client, "volunteer").status_code == 302
    assert "volunteer" in members(work)


def test_staff_leads_add_any_account(lead_page, make_user):
    work, client = lead_page
    make_user("quiet")
    work.lead.is_staff = True
    work.lead.save()
    assert add(client, "quiet").status_code == 302
    assert "quiet" in members(work)


def test_new_accounts_get_valid_usernames(lead_page):
    work, client = lead_page
    refused = add(client, "bad name/<x>", "a-long-enough-pass-9")
    assert refused.status_code == 400 and "Enter a valid username" in refused.content.decode()
    assert not get_user_model().objects.filter(username="bad name/<x>").exists()
    assert add(client, "new.person", "a-long-enough-pass-9").status_code == 302
    assert "new.person" in members(work)
