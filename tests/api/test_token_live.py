"""API tokens through a live gunicorn with two workers: a revoked token, a deactivated user and a deleted token
are refused by the very next request in every worker (tokens are read on every request, never cached), and
the shorter middleware chain of token-authenticated API requests (``config.handlers``) keeps the security
headers and the request's language while a session-authenticated save still needs its CSRF token."""

from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from annotator.models import Judgement
from annotator.services.accounts import tokens_revoke
from tests.conftest import database_url
from tests.factories import PASSWORD, project_with_work
from tests.live_servers import running, start_gunicorn

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres(reason="two gunicorn workers in other processes share the database with the test"),
]

SECURITY_HEADERS = (
    "Content-Security-Policy",
    "X-Frame-Options",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
)


class Saves:
    """Saves of one item through the live server, each tagged so that the access log names its worker."""

    def __init__(self, server, item, log):
        self.server, self.item, self.log = server, item, log
        self.count = 0
        self.lock = threading.Lock()

    def send(self, token: str, value: str, **headers) -> tuple[int, requests.Response]:
        with self.lock:
            self.count += 1
            tag = self.count
        response = requests.post(
            f"{self.server.url}/api/assignments/{self.item.pk}/judgements/?tag={tag}",
            json={"judgements": [{"criterion": "A", "unit": 0, "value": value}], "seconds": 1},
            headers={"Authorization": f"Token {token}", **headers},
            timeout=60,
        )
        return tag, response

    def workers_of(self, tags: set[int]) -> set[str]:
        """The worker pids that answered the requests tagged ``tags`` (from the access log)."""
        found = set()
        for pid, tag in re.findall(r"^ACCESS <(\d+)> \S+ tag=(\d+)", self.log.read_text(), flags=re.M):
            if int(tag) in tags:
                found.add(pid)
        return found

    def until_both_workers(self, token: str, value: str) -> list[requests.Response]:
        """Concurrent saves until both workers have answered some (at most 400 requests)."""
        answers: dict[int, requests.Response] = {}
        with ThreadPoolExecutor(4) as pool:
            for _round in range(50):
                for tag, response in pool.map(lambda _i: self.send(token, value), range(8)):
                    answers[tag] = response
                if len(self.workers_of(set(answers))) == 2:
                    return list(answers.values())
        raise AssertionError(f"one worker answered all {len(answers)} requests")


@pytest.fixture
def live(tmp_path):
    work = project_with_work("stc3", annotators=1, k=1)
    annotator = work.annotators[0]
    item = work.assignments_of(annotator)[0]
    log = tmp_path / "gunicorn.log"
    server = start_gunicorn(
        database_url(), log, production=False, workers=2, access_log_format="ACCESS %(p)s %(s)s %(q)s"
    )
    with running(server):
        yield server, annotator, item, Saves(server, item, log)


def stored_value(item) -> str | None:
    row = Judgement.objects.filter(assignment=item, criterion__key="A", unit=0).first()
    return row and row.value


def test_revoked_deactivated_and_deleted_tokens_are_refused_at_once_by_every_worker(live):
    _server, annotator, item, saves = live
    token = Token.objects.create(user=annotator).key
    assert {r.status_code for r in saves.until_both_workers(token, "1")} == {200}
    assert stored_value(item) == "1"

    assert tokens_revoke(user_id=annotator.pk) == 1
    refused = saves.until_both_workers(token, "2")  # both workers had read the token before
    assert {r.status_code for r in refused} == {401}
    assert refused[0].headers["WWW-Authenticate"] == "Token"
    assert stored_value(item) == "1"  # nothing of a refused save was written

    token = Token.objects.create(user=annotator).key
    assert {r.status_code for r in saves.until_both_workers(token, "0")} == {200}
    get_user_model().objects.filter(pk=annotator.pk).update(is_active=False)
    assert {r.status_code for r in saves.until_both_workers(token, "-1")} == {401}
    get_user_model().objects.filter(pk=annotator.pk).update(is_active=True)
    assert {r.status_code for r in saves.until_both_workers(token, "-1")} == {200}
    Token.objects.filter(key=token).delete()  # e.g. in the admin
    assert {r.status_code for r in saves.until_both_workers(token, "-2")} == {401}
    assert stored_value(item) == "-1"


def test_a_token_save_keeps_the_security_headers_and_the_language_and_sets_no_cookie(live):
    server, annotator, _item, saves = live
    token = Token.objects.create(user=annotator).key
    page = requests.get(f"{server.url}/accounts/login/", timeout=60)  # the full chain's headers
    _tag, saved = saves.send(token, "1", **{"Accept-Language": "ja"})
    assert saved.status_code == 200, saved.text
    for header in SECURITY_HEADERS:
        assert saved.headers.get(header) == page.headers.get(header) is not None, header
    assert "Set-Cookie" not in saved.headers  # no session, no CSRF cookie
    assert saved.headers["Content-Language"] == "ja" and "Accept-Language" in saved.headers["Vary"]
    # a refusal in the language asked for (a value the criterion does not take)
    _tag, refused = saves.send(token, "7", **{"Accept-Language": "ja"})
    assert refused.status_code == 400 and refused.headers["Content-Language"] == "ja"
    assert refused.json()["problems"] and not refused.json()["problems"][0].isascii()
    _tag, english = saves.send(token, "7")
    assert english.headers["Content-Language"] == "en" and english.json()["problems"][0].isascii()


def test_a_session_save_through_the_api_still_needs_its_csrf_token(live):
    server, annotator, item, _saves = live
    session = server.login(annotator.username, PASSWORD)
    url = f"{server.url}/api/assignments/{item.pk}/judgements/"
    body = {"judgements": [{"criterion": "A", "unit": 0, "value": "2"}], "seconds": 1}
    refused = session.post(url, json=body, timeout=60)
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    assert stored_value(item) is None
    accepted = session.post(
        url, json=body, headers={"X-CSRFToken": session.cookies["csrftoken"], "Referer": server.url + "/"}, timeout=60
    )
    assert accepted.status_code == 200, accepted.text
    assert stored_value(item) == "2"
