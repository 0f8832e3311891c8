"""Logins are throttled per account and per client address (django-axes), and the API token endpoint too.

Ten wrong passwords in a row lock the account (and the address) for the configured time; the
eleventh attempt is refused with a clear message even with the right password; an admin lifts the
lock by deleting the access attempt.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from api.throttles import WriteRateThrottle
from tests.factories import PASSWORD, project_with_work, user_make

pytestmark = pytest.mark.django_db

LOCKED = "Too many failed logins"


def login(client: Client, username: str, password: str, address: str = "127.0.0.1"):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def logged_in(client: Client) -> bool:
    return client.get("/").wsgi_request.user.is_authenticated


def test_ten_wrong_passwords_lock_the_account_and_the_eleventh_is_refused_with_the_right_one():
    user_make("mallory-target")
    client = Client()
    assert settings.AXES_FAILURE_LIMIT == 10
    for attempt in range(9):
        response = login(client, "mallory-target", f"wrong-{attempt}")
        assert response.status_code == 200 and b"did not match" in response.content
    tenth = login(client, "mallory-target", "wrong-9")
    assert tenth.status_code == 429
    eleventh = login(client, "mallory-target", PASSWORD)
    assert eleventh.status_code == 429
    text = eleventh.content.decode()
    assert LOCKED in text and "locked for 30 minutes" in text and "ask an administrator" in text
    assert not logged_in(client)


def test_the_lock_lasts_the_configured_time():
    user_make("patient")
    client = Client()
    for attempt in range(10):
        login(client, "patient", f"wrong-{attempt}")
    assert login(client, "patient", PASSWORD).status_code == 429
    # when the configured time has passed (the attempts are moved back by it)
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))
    response = login(client, "patient", PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_the_account_is_locked_whatever_address_the_attempts_come_from():
    user_make("roaming")
    client = Client()
    for attempt in range(10):
        login(client, "roaming", "wrong", address=f"10.0.0.{attempt + 1}")
    assert login(client, "roaming", PASSWORD, address="10.0.1.1").status_code == 429


def test_an_address_is_locked_whatever_accounts_it_tries():
    user_make("innocent")
    sprayer = Client()
    for attempt in range(10):
        login(sprayer, f"guess-{attempt}", "wrong", address="10.9.9.9")
    assert login(sprayer, "innocent", PASSWORD, address="10.9.9.9").status_code == 429
    elsewhere = Client()
    assert login(elsewhere, "innocent", PASSWORD, address="10.1.1.1").status_code == 302


def test_an_admin_lifts_the_lockout_in_the_admin():
    user_make("forgetful")
    client = Client()
    for attempt in range(10):
        login(client, "forgetful", f"wrong-{attempt}")
    assert login(client, "forgetful", PASSWORD).status_code == 429
    admin = get_user_model().objects.create_superuser("root", password=PASSWORD)
    staff = Client()
    staff.force_login(admin)
    listing = staff.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200 and b"forgetful" in listing.content
    attempt = AccessAttempt.objects.get(username="forgetful")
    confirm = staff.post(
        "/admin/axes/accessattempt/", {"action": "delete_selected", "_selected_action": [attempt.pk], "post": "yes"}
    )
    assert confirm.status_code == 302
    assert login(client, "forgetful", PASSWORD).status_code == 302 and logged_in(client)


def test_the_api_token_endpoint_locks_out_with_a_clear_message():
    user_make("robot")
    api = APIClient()
    for attempt in range(9):
        response = api.post("/api/auth/token/", {"username": "robot", "password": f"wrong-{attempt}"}, format="json")
        assert response.status_code == 400
    api.post("/api/auth/token/", {"username": "robot", "password": "wrong-9"}, format="json")
    refused = api.post("/api/auth/token/", {"username": "robot", "password": PASSWORD}, format="json")
    assert refused.status_code == 429
    assert LOCKED in refused.json()["detail"] and refused.json()["locked_out"] is True
    assert "token" not in refused.json()


def test_the_api_token_endpoint_is_rate_limited_per_address():
    user_make("busy")
    api = APIClient()
    answers = [
        api.post("/api/auth/token/", {"username": "busy", "password": PASSWORD}, format="json").status_code
        for _ in range(21)
    ]
    assert answers[:20] == [200] * 20  # settings: "login": "20/minute"
    assert answers[20] == 429


def test_api_writes_are_rate_limited_per_user(monkeypatch):
    work = project_with_work("stc3", slug="rated", annotators=2)
    monkeypatch.setattr(WriteRateThrottle, "THROTTLE_RATES", {"writes": "3/minute"})
    first, second = (APIClient() for _ in range(2))
    first.force_authenticate(work.annotators[0])
    second.force_authenticate(work.annotators[1])
    item = work.assignments_of(work.annotators[0])[0]
    url = f"/api/assignments/{item.pk}/judgements/"
    codes = [first.post(url, {"judgements": []}, format="json").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert first.get(f"/api/assignments/{item.pk}/").status_code == 200  # reads are not limited
    other = work.assignments_of(work.annotators[1])[0]
    assert second.post(f"/api/assignments/{other.pk}/judgements/", {"judgements": []}, format="json").status_code == 200
