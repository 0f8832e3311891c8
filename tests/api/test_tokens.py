"""API tokens end with the password that obtained them, on a lead's or an admin's revoke, and
(optionally) after a lifetime."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import PASSWORD, project_with_work

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(
        reason=("a token request reads the token and its user with a statement per database (api.authentication)")
    ),
]


@pytest.fixture
def work():
    return project_with_work("stc3", slug="tok", annotators=1)


def obtain(username: str, password: str = PASSWORD) -> str:
    response = APIClient().post("/api/auth/token/", {"username": username, "password": password})
    assert response.status_code == 200, response.content
    return response.json()["token"]


def answers(key: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/projects/").status_code


def test_a_password_change_on_the_page_rotates_the_token(work):
    ann = work.annotators[0]
    old = obtain(ann.username)
    assert answers(old) == 200 and obtain(ann.username) == old  # stable until something ends it
    page = Client()
    page.force_login(ann)
    changed = page.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": "a-new-long-pass-42", "new_password2": "a-new-long-pass-42"},
    )
    assert changed.status_code == 302, changed.content
    assert answers(old) == 401
    new = obtain(ann.username, "a-new-long-pass-42")
    assert new != old and answers(new) == 200


def test_any_saved_password_change_rotates_the_token(work):
    # the admin's form and ``manage.py changepassword`` both end in set_password() + save()
    ann = work.annotators[0]
    old = obtain(ann.username)
    ann.set_password("another-long-pass-7")
    ann.save()
    assert answers(old) == 401


def test_saving_a_user_without_a_password_change_keeps_the_token(work):
    ann = work.annotators[0]
    key = obtain(ann.username)
    ann.first_name = "Ann"
    ann.save()
    assert answers(key) == 200


def test_a_lead_revokes_a_members_token_on_the_page_and_in_the_api(work, make_user):
    ann = work.annotators[0]
    key = obtain(ann.username)
    lead = Client()
    lead.force_login(work.lead)
    assert lead.post(reverse("lead_member_tokens", args=["tok", ann.pk])).status_code == 302
    assert answers(key) == 401
    key = obtain(ann.username)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {obtain(work.lead.username)}")
    revoked = api.post(f"/api/projects/tok/members/{ann.pk}/tokens/revoke/")
    assert revoked.status_code == 200 and revoked.json() == {"revoked": 1}
    assert answers(key) == 401
    # a lead reaches only their own project's members; an annotator revokes nobody's
    stranger = make_user("stranger")
    stranger_key = obtain(stranger.username)
    assert lead.post(reverse("lead_member_tokens", args=["tok", stranger.pk])).status_code == 404
    assert api.post(f"/api/projects/tok/members/{stranger.pk}/tokens/revoke/").status_code == 404
    as_annotator = APIClient()
    as_annotator.credentials(HTTP_AUTHORIZATION=f"Token {obtain(ann.username)}")
    assert as_annotator.post(f"/api/projects/tok/members/{work.lead.pk}/tokens/revoke/").status_code == 403
    assert answers(stranger_key) == 200 and answers(obtain(work.lead.username)) == 200


def test_an_admin_revokes_tokens_with_the_user_admin_action(work, django_user_model):
    ann = work.annotators[0]
    key = obtain(ann.username)
    admin = django_user_model.objects.create_superuser("root", password=PASSWORD)
    client = Client()
    client.force_login(admin)
    response = client.post(
        reverse("admin:auth_user_changelist"), {"action": "revoke_api_tokens", "_selected_action": [ann.pk]}
    )
    assert response.status_code == 302
    assert answers(key) == 401


def test_tokens_expire_after_the_configured_lifetime(work, settings):
    ann = work.annotators[0]
    key = obtain(ann.username)
    settings.API_TOKEN_LIFETIME_HOURS = 12
    assert answers(key) == 200
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(hours=13))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    expired = client.get("/api/projects/")
    assert expired.status_code == 401 and "expired" in expired.json()["detail"]
    fresh = obtain(ann.username)
    assert fresh != key and answers(fresh) == 200
