"""Download names come from the run's name made safe, through Django's Content-Disposition helper:
a name with CR/LF cannot break the answer or add a header, and quotes cannot forge a file name."""

import json
from email.message import Message

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add
from evaluation.runs.services.scoring import run_score
from tests.fixtures.collections import stc3_dialogues, write_json
from tests.reference_scoring import random_stc3_run

pytestmark = pytest.mark.django_db

NAMES = ["evil\r\nX-Injected: 1", 'a"; filename="evil.exe', "système ünïcode"]


@pytest.fixture
def runs(make_project, make_user, tmp_path):
    """A run of each name, scored (by the scoring service itself, as the worker scores an upload)."""
    project = make_project("stc3", slug="dl")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    lead = make_user("lead")
    membership_add(project=project, user=lead, role="lead")
    raw = json.dumps(random_stc3_run(stc3_dialogues(), 2)).encode()
    scored = []
    for name in NAMES:
        run = run_score(project=project, name=name, files=[("run.json", raw)])
        assert run.status == "scored", run.error
        scored.append(run)
    return lead, scored


def filename_of(response) -> str:
    header = response["Content-Disposition"]
    assert "\r" not in header and "\n" not in header
    message = Message()
    message["Content-Disposition"] = header
    return message.get_filename()


def downloads(lead, run):
    page = Client(raise_request_exception=False)
    page.force_login(lead)
    api = APIClient(raise_request_exception=False)
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=lead)[0].key}")
    return [
        page.get(f"/projects/dl/runs/{run.pk}/per-dialogue.csv"),
        api.get(f"/api/projects/dl/runs/{run.pk}/per-dialogue/?format=csv"),
    ]


def test_cr_lf_in_a_run_name_neither_breaks_the_download_nor_adds_a_header(runs):
    lead, (crlf, _quotes, _unicode) = runs
    for response in downloads(lead, crlf):
        assert response.status_code == 200 and response.getvalue().startswith(b"dialogue,")
        assert not response.has_header("X-Injected")
        assert filename_of(response) == "evil_X-Injected_ 1-per-dialogue.csv"


def test_quotes_in_a_run_name_cannot_forge_the_file_name(runs):
    lead, (_crlf, quotes, _unicode) = runs
    for response in downloads(lead, quotes):
        assert response.status_code == 200
        assert response["Content-Disposition"].count("filename=") == 1
        assert filename_of(response) == "a_ filename_evil.exe-per-dialogue.csv"


def test_names_outside_ascii_are_kept_in_utf_8(runs):
    lead, (_crlf, _quotes, unicode_run) = runs
    for response in downloads(lead, unicode_run):
        assert response.status_code == 200
        assert "filename*=utf-8''syst%C3%A8me" in response["Content-Disposition"]
