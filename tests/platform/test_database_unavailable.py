"""The database unreachable (a restart, a failover) answers 503 with Retry-After, saying that nothing was
changed, for pages (HTML) and the API (JSON): not a 500, which would say the request failed for good. The live
outage itself is in test_deployment_stack.py (PostgreSQL restarted under load)."""

from unittest import mock

import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("error", [OperationalError("server closed the connection"), InterfaceError("closed")])
@pytest.mark.parametrize(
    "path, content_type", [("/", "text/html"), ("/api/projects/", "application/json")], ids=["page", "api"]
)
def test_an_unreachable_database_answers_503_with_retry_after(make_user, error, path, content_type):
    client = Client(raise_request_exception=False)
    client.force_login(make_user("reader"))
    with mock.patch("django.contrib.sessions.backends.db.SessionStore.load", side_effect=error):
        answer = client.get(path, HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 503
    assert answer["Retry-After"] == "5" and answer["Content-Type"].startswith(content_type)
    text = answer.content.decode()
    assert "nothing was changed" in text
    if content_type == "application/json":
        assert answer.json()["code"] == "database_unavailable"


def test_any_other_crash_is_still_a_500(make_user):
    client = Client(raise_request_exception=False)
    client.force_login(make_user("reader"))
    with mock.patch("django.contrib.sessions.backends.db.SessionStore.load", side_effect=RuntimeError("bug")):
        answer = client.get("/api/projects/")
    assert answer.status_code == 500 and "Retry-After" not in answer
