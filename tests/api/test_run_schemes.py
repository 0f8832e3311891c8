"""A run upload is accepted only where the project's scheme takes run files, by the API and the page alike.

Before the run scheme was asked in one place the API accepted an upload on a coherence project (202, then the
file was silently replaced by a reorderings run) and on pairwise and NLPCC projects (202, rejected later).
"""

from __future__ import annotations

import io

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.presets import PRESETS
from evaluation.models import Run, RunStatus
from tests.factories import project_with_work

pytestmark = pytest.mark.django_db

UPLOADS = {key for key, spec in PRESETS.items() if spec.run_scheme is not None and spec.run_scheme.uploads}


def _upload(client, slug: str):
    raw = io.BytesIO(b'[{"id": "not-in-the-gold"}]')
    raw.name = "run.json"
    data = {"name": "sys-a", "files": [raw], "alpha": 0.7, "threshold": 0.4, "strict": "true"}
    return client.post(f"/api/projects/{slug}/runs/", data, format="multipart")


def test_the_presets_that_take_run_files():
    assert {"dch1", "stc3", "dbdc"} == UPLOADS


@pytest.mark.eager_tasks(reason="the upload's scoring job, whose outcome (scored or rejected) the test reads")
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_run_upload_through_the_api_on_every_preset(preset, django_capture_on_commit_callbacks):
    # given a lead of a project of the preset, with the preset's demo dialogues
    work = project_with_work(preset, slug=f"runs-{preset}", annotators=1)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=work.lead)[0].key}")

    # when the lead uploads a run file through the API
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(client, work.project.slug)

    runs = list(Run.objects.filter(project=work.project))
    if preset in UPLOADS:
        # then it is kept, of the scheme's kind, with only the options that apply to it, and scored by the worker
        # (this file is no run of either format, so the scheme's reader rejects it with its message)
        assert response.status_code == 202, response.content
        [run] = runs
        scheme = PRESETS[preset].run_scheme
        assert run.kind == scheme.key
        assert set(run.options) == set(scheme.options)
        assert run.status == RunStatus.FAILED and run.error.startswith("run.json")
    else:
        # then it is refused at once, saying why, and nothing is kept
        assert response.status_code == 400, response.content
        assert runs == []
        text = response.json()["detail"]
        assert "takes no run files" in text or "has no system runs" in text


@pytest.mark.parametrize("preset", ["coherence", "nlpcc", "pairwise"])
def test_the_page_offers_no_upload_where_the_api_refuses_one(preset, client):
    work = project_with_work(preset, slug=f"page-{preset}", annotators=1)
    client.force_login(work.lead)
    page = client.get(f"/projects/{work.project.slug}/runs/")
    assert page.status_code == 200 and b'enctype="multipart/form-data"' not in page.content
    posted = client.post(f"/projects/{work.project.slug}/runs/", {"name": "sys-a"})
    assert posted.status_code == 200 and not Run.objects.filter(project=work.project).exists()
