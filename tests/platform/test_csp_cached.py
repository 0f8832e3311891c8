"""``config.csp.CSPMiddleware`` (the policy built once) sets exactly the headers django-csp's own middleware sets,
for a page and an API response, with the settings' policy, a report-only policy, an excluded prefix, a
changed setting, a nonce and a response's own policy."""

from __future__ import annotations

import re

import pytest
from csp.constants import NONCE
from csp.middleware import CSPMiddleware as LibraryCSPMiddleware
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from config.csp import CSPMiddleware

HEADERS = ("Content-Security-Policy", "Content-Security-Policy-Report-Only")


def both(path: str, *, nonce: bool = False, own: dict | None = None) -> tuple[dict, dict]:
    answers = []
    for middleware in (CSPMiddleware, LibraryCSPMiddleware):

        def view(request):
            response = HttpResponse("x")
            if nonce:
                str(request.csp_nonce)  # a template asking for the nonce
            for name, value in (own or {}).items():
                setattr(response, name, value)
            return response

        response = middleware(view)(RequestFactory().post(path))
        answers.append({h: response.get(h) for h in HEADERS})
    return answers[0], answers[1]


@pytest.mark.parametrize("path", ["/accounts/login/", "/api/assignments/1/judgements/"])
def test_the_settings_policy_is_the_librarys(path):
    ours, theirs = both(path)
    assert ours == theirs and ours["Content-Security-Policy"]
    assert ours["Content-Security-Policy-Report-Only"] is None


def test_report_only_excluded_prefixes_and_changed_settings_follow_the_settings():
    report_only = {"DIRECTIVES": {"default-src": ["'self'"], "img-src": ["https://example.org"]}}
    with override_settings(CONTENT_SECURITY_POLICY_REPORT_ONLY=report_only):
        ours, theirs = both("/projects/")
        assert ours == theirs and "example.org" in ours["Content-Security-Policy-Report-Only"]
    excluded = {"EXCLUDE_URL_PREFIXES": ["/api/"], "DIRECTIVES": {"default-src": ["'self'"]}}
    with override_settings(CONTENT_SECURITY_POLICY=excluded):
        ours, theirs = both("/api/assignments/1/judgements/")
        assert ours == theirs and ours["Content-Security-Policy"] is None
        ours, theirs = both("/projects/")
        assert ours == theirs == {"Content-Security-Policy": "default-src 'self'", HEADERS[1]: None}
    ours, theirs = both("/projects/")  # back to the settings' own
    assert ours == theirs and "frame-ancestors 'none'" in ours["Content-Security-Policy"]


def test_a_nonce_or_a_responses_own_policy_goes_through_the_library():
    with_nonce = {"DIRECTIVES": {"default-src": ["'self'"], "script-src": ["'self'", NONCE]}}
    with override_settings(CONTENT_SECURITY_POLICY=with_nonce):
        ours, theirs = both("/projects/", nonce=True)
    assert re.search(r"'nonce-[^']+'", ours["Content-Security-Policy"])
    assert re.sub(r"'nonce-[^']+'", "N", ours[HEADERS[0]]) == re.sub(r"'nonce-[^']+'", "N", theirs[HEADERS[0]])
    ours, theirs = both("/projects/", own={"_csp_update": {"img-src": ["https://example.org"]}})
    assert ours == theirs and "https://example.org" in ours["Content-Security-Policy"]
    ours, theirs = both("/projects/", own={"_csp_exempt": True})
    assert ours == theirs and ours["Content-Security-Policy"] is None
