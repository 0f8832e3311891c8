"""Content-Security-Policy without inline scripts, Referrer-Policy, and templates that need neither."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.factories import project_with_work

ROOT = Path(__file__).resolve().parents[2]


def directives(header: str) -> dict[str, list[str]]:
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.django_db
def test_every_page_carries_the_policy_and_the_referrer_policy(client):
    work = project_with_work("coherence", slug="csp", annotators=1)
    client.force_login(work.lead)
    item = work.assignments_of(work.annotators[0])[0]
    pages = ["/accounts/login/", "/projects/csp/manage/", "/projects/csp/dashboard/", "/api/docs/"]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        policy = directives(response["Content-Security-Policy"])
        assert policy["script-src"] == ["'self'"] and policy["default-src"] == ["'self'"], url
        assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
        assert "'unsafe-inline'" not in response["Content-Security-Policy"]
        assert response["Referrer-Policy"] == "same-origin"
    client.force_login(work.annotators[0])
    annotate = client.get(f"/items/{item.pk}/")
    assert "Content-Security-Policy" in annotate
    # the only inline <script> elements are data (json_script), which a policy does not execute
    for tag in re.findall(r"<script\b[^>]*>", annotate.content.decode()):
        assert "src=" in tag or 'type="application/json"' in tag, tag


def test_templates_have_no_inline_scripts_or_handlers():
    for template in (ROOT / "templates").rglob("*.html"):
        text = template.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag, f"{template}: inline script {tag}"
        assert not re.search(r"\son[a-z]+\s*=", text), f"{template}: inline event handler"
        assert "javascript:" not in text, f"{template}: javascript: URL"
        assert not re.search(r"\sstyle\s*=", text), f"{template}: inline style (style-src 'self')"
