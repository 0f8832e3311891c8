"""X-Forwarded-Proto is believed from the reverse proxy only: a client that reaches the app directly
cannot claim HTTPS (and so, e.g., skip the redirect to HTTPS)."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

PROXY = "172.30.250.2"


@pytest.fixture
def behind_a_proxy(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_SSL_REDIRECT = True
    settings.TRUSTED_PROXIES = ["172.30.250.0/29"]


def test_a_client_cannot_claim_https(behind_a_proxy):
    response = Client().get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https", REMOTE_ADDR="203.0.113.9")
    assert response.status_code == 301 and response["Location"].startswith("https://")


def test_the_proxy_can(behind_a_proxy):
    response = Client().get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https", REMOTE_ADDR=PROXY)
    assert response.status_code == 200


def test_the_proxy_saying_http_is_redirected(behind_a_proxy):
    response = Client().get("/accounts/login/", HTTP_X_FORWARDED_PROTO="http", REMOTE_ADDR=PROXY)
    assert response.status_code == 301


# The client's address behind the proxy (config.client_address): what the lockouts and rate limits count.

CLIENT_A, CLIENT_B = "198.51.100.10", "203.0.113.20"


@pytest.fixture
def proxy_trusted(settings):
    settings.TRUSTED_PROXIES = ["172.30.250.0/29"]


def login_via_proxy(client: Client, username: str, password: str, forwarded_for: str, peer: str = PROXY):
    return client.post(
        "/accounts/login/",
        {"username": username, "password": password},
        REMOTE_ADDR=peer,
        HTTP_X_FORWARDED_FOR=forwarded_for,
    )


def test_locking_out_one_client_behind_the_proxy_leaves_another_clients_login_working(proxy_trusted):
    from tests.factories import PASSWORD, user_make

    user_make("bystander")
    sprayer = Client()
    for attempt in range(10):  # one client guessing at ten accounts locks its own address
        login_via_proxy(sprayer, f"guess-{attempt}", "wrong", CLIENT_A)
    assert login_via_proxy(sprayer, "bystander", PASSWORD, CLIENT_A).status_code == 429
    # the other client, through the same proxy, logs in
    assert login_via_proxy(Client(), "bystander", PASSWORD, CLIENT_B).status_code == 302


def test_a_forwarded_for_a_client_puts_in_front_of_the_proxys_entry_is_not_believed(proxy_trusted):
    from tests.factories import PASSWORD, user_make

    user_make("bystander")
    sprayer = Client()
    for attempt in range(10):  # each attempt claims another address, but the proxy appended the real one
        login_via_proxy(sprayer, f"guess-{attempt}", "wrong", f"10.0.0.{attempt}, {CLIENT_A}")
    assert login_via_proxy(sprayer, "bystander", PASSWORD, f"10.9.9.9, {CLIENT_A}").status_code == 429
    assert login_via_proxy(Client(), "bystander", PASSWORD, CLIENT_B).status_code == 302


def test_an_untrusted_peers_forwarded_for_is_ignored(proxy_trusted):
    from tests.factories import PASSWORD, user_make

    user_make("bystander")
    direct = "192.0.2.50"  # reaches gunicorn directly, claiming to be someone else each time
    for attempt in range(10):
        login_via_proxy(Client(), f"guess-{attempt}", "wrong", f"10.0.0.{attempt}", peer=direct)
    assert login_via_proxy(Client(), "bystander", PASSWORD, CLIENT_B, peer=direct).status_code == 429


def test_the_api_token_limit_counts_each_client_behind_the_proxy(proxy_trusted):
    from rest_framework.test import APIClient

    from tests.factories import PASSWORD, user_make

    user_make("busy")
    api = APIClient(REMOTE_ADDR=PROXY)

    def token(forwarded_for: str) -> int:
        body = {"username": "busy", "password": PASSWORD}
        return api.post("/api/auth/token/", body, format="json", HTTP_X_FORWARDED_FOR=forwarded_for).status_code

    assert [token(CLIENT_A) for _ in range(21)][-2:] == [200, 429]  # settings: "login": "20/minute"
    assert token(CLIENT_B) == 200


def test_the_study_sign_up_limit_counts_each_client_behind_the_proxy(proxy_trusted, settings, tmp_path):
    from annotator.models import Participant
    from tests.factories import study_on_new_project

    settings.STUDY_PARTICIPANTS_RATE = "1/hour"
    _work, study = study_on_new_project(tmp_path)

    def arrive(participant: str, forwarded_for: str) -> int:
        via_proxy = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=forwarded_for)
        return via_proxy.get(f"/study/{study.token}/", {"PROLIFIC_PID": participant}).status_code

    assert arrive("p0", CLIENT_A) == 302
    assert arrive("p1", CLIENT_A) == 429  # this client's one new participant an hour is used
    assert arrive("p2", CLIENT_B) == 302  # another client behind the same proxy is not
    assert set(Participant.objects.values_list("external_id", flat=True)) == {"p0", "p2"}
