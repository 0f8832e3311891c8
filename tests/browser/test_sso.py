"""Single sign-on with OpenID Connect, end to end in Chromium: gunicorn with ``OIDC_ENABLED`` (tests/live_servers.py)
and a real provider process, npm's certified ``oidc-provider`` run with Node (tests/oidc/provider.mjs, installed by
scripts/run_tests.py). The login page offers "Sign in with <provider>"; the provider's login page signs the person
in; back on the site they are a user whose groups claim made them members by the project's rules."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from annotator.models import Membership
from annotator.services.projects import project_create
from annotator.services.sso import project_sso_groups_save
from tests.conftest import database_url
from tests.live_servers import running, start_gunicorn
from tests.waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
OIDC_DIR = Path(__file__).resolve().parent.parent / "oidc"


@contextlib.contextmanager
def oidc_provider(tmp_path: Path, port: int, redirect_uri: str, groups: dict[str, list[str]]):
    if shutil.which("node") is None:
        pytest.skip("needs Node (scripts/services.py installs Debian's nodejs)")
    if not (OIDC_DIR / "node_modules" / "oidc-provider").exists():
        pytest.skip("the npm package oidc-provider is not installed in tests/oidc (npm registry unreachable?)")
    log = tmp_path / "oidc.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            ["node", "provider.mjs", str(port), redirect_uri], cwd=OIDC_DIR, stdout=out, stderr=subprocess.STDOUT,
            env=dict(os.environ, ACCOUNT_GROUPS=json.dumps(groups)),
        )  # fmt: skip
    try:
        assert wait_for(lambda: "listening" in log.read_text() or process.poll() is not None, timeout=60)
        assert process.poll() is None, log.read_text()
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_login_page_has_no_sso_button_by_default(client):
    answer = client.get("/accounts/login/")
    assert answer.status_code == 200 and "Sign in with" not in answer.content.decode()


def test_signing_in_with_the_provider_makes_a_member_by_group(tmp_path, page, screenshot):
    from services import free_port  # scripts/services.py

    project = project_create(slug="sso-project", preset="stc3")
    project_sso_groups_save(project=project, text="nlp-staff = lead\nstudents = annotator")
    provider_port = free_port()
    env = {
        "OIDC_ENABLED": "true",
        "OIDC_PROVIDER_NAME": "University login",
        "OIDC_ISSUER": f"http://127.0.0.1:{provider_port}",
        "OIDC_RP_CLIENT_ID": "dialeval",
        "OIDC_RP_CLIENT_SECRET": "dialeval-test-secret",
        "OIDC_RP_SCOPES": "openid email profile groups",
    }
    with running(start_gunicorn(database_url(), tmp_path / "gunicorn.log", production=False, **env)) as server:
        callback = f"{server.url}/oidc/callback/"
        with oidc_provider(tmp_path, provider_port, callback, {"ada": ["nlp-staff", "other"], "bob": ["students"]}):
            page.goto(f"{server.url}/accounts/login/")
            button = page.get_by_role("link", name="Sign in with University login")
            screenshot("sso-login-page")
            button.click()
            page.wait_for_url(f"http://127.0.0.1:{provider_port}/**")
            page.fill("input[name=login]", "ada")
            page.fill("input[name=password]", "anything")
            screenshot("sso-provider-login")
            page.locator("button[type=submit]").click()
            page.wait_for_url(f"{server.url}/")
            assert "ada" in page.locator("header").inner_text()
            assert "sso-project" in page.locator("main").inner_text()
            screenshot("sso-signed-in")
    ada = get_user_model().objects.get(username="ada")
    assert ada.email == "ada@example.org" and not ada.has_usable_password()
    assert Membership.objects.get(project=project, user=ada).role == "lead"
    assert not get_user_model().objects.filter(username="bob").exists()
