"""Token-authenticated API requests through the WSGI application (``config.handlers``): the shorter middleware
chain answers every kind of API view (JSON, the schema, the HTML documentation, a save), with no session."""

from __future__ import annotations

import io
import json
from wsgiref.util import setup_testing_defaults

import pytest
from django.core import signals
from django.db import close_old_connections
from rest_framework.authtoken.models import Token

from config.handlers import Handler, token_api_request
from tests.factories import project_with_work

pytestmark = pytest.mark.django_db


def call(handler, method: str, path: str, token: str | None, body: dict | None = None):
    payload = json.dumps(body).encode() if body is not None else b""
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "testserver",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(payload)),
        "wsgi.input": io.BytesIO(payload),
    }
    setup_testing_defaults(environ)  # the rest of a request's environment as a WSGI server gives it
    if token:
        environ["HTTP_AUTHORIZATION"] = f"Token {token}"
    started = {}
    content = b"".join(handler(environ, lambda status, headers, *rest: started.update(status=status, headers=headers)))
    return int(started["status"].split()[0]), dict(started["headers"]), content


@pytest.fixture
def connections_kept():
    """As Django's test client does: the handler's request signals do not close the test's connection."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def test_every_kind_of_api_view_answers_through_the_token_chain(settings, connections_kept):
    settings.ALLOWED_HOSTS = ["testserver"]
    work = project_with_work("stc3", slug="chain", annotators=1)
    annotator = work.annotators[0]
    item = work.assignments_of(annotator)[0]
    token = Token.objects.create(user=annotator).key
    handler = Handler()
    skipped = set(settings.TOKEN_API_SKIPPED_MIDDLEWARE)
    assert skipped <= set(settings.MIDDLEWARE) and "django.contrib.sessions.middleware.SessionMiddleware" in skipped
    for path in ("/api/projects/", "/api/schema/", "/api/docs/", f"/api/assignments/{item.pk}/"):
        status, headers, content = call(handler, "GET", path, token)
        assert status == 200, (path, content[:300])
        assert "Set-Cookie" not in headers and "Cookie" not in headers.get("Vary", ""), path
        assert headers["X-Frame-Options"] == "DENY" and "Content-Security-Policy" in headers
    body = {"judgements": [{"criterion": "A", "unit": 0, "value": "1"}], "seconds": 2}
    status, _headers, content = call(handler, "POST", f"/api/assignments/{item.pk}/judgements/", token, body)
    assert status == 200 and json.loads(content)["version"] == 1
    status, headers, _content = call(handler, "POST", f"/api/assignments/{item.pk}/judgements/", "no-such", body)
    assert status == 401 and headers["WWW-Authenticate"] == "Token"
    status, _headers, _content = call(handler, "POST", f"/api/assignments/{item.pk}/judgements/", None, body)
    assert status == 401  # without a token: the full chain, no session either


@pytest.mark.parametrize(
    ("path", "authorization", "shorter"),
    [
        ("/api/projects/", "Token abc", True),
        ("/api/projects/", "token abc", True),
        ("/api/projects/", "Bearer abc", False),
        ("/api/projects/", "", False),
        ("/projects/", "Token abc", False),
        ("/apis/", "Token abc", False),
    ],
)
def test_only_api_requests_with_a_token_take_the_shorter_chain(rf, path, authorization, shorter):
    request = rf.get(path, HTTP_AUTHORIZATION=authorization) if authorization else rf.get(path)
    assert token_api_request(request) is shorter
