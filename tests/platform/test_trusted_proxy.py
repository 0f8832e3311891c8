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
