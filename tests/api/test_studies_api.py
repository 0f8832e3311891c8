"""Everything a lead does on the study pages, through the REST API (IsProjectLead)."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.models import Participant
from annotator.services.projects import membership_add
from annotator.studies.services import participant_arrive, participant_start
from tests.factories import study_on_new_project, user_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def lead_api(tmp_path):
    cache.clear()
    work, study = study_on_new_project(tmp_path, dialogues=6, k=2)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=work.lead).key}")
    return work, study, client


def test_a_lead_opens_changes_closes_reopens_and_rotates_a_study_through_the_api(lead_api):
    work, _study, api = lead_api
    base = f"/api/projects/{work.project.slug}/studies/"
    # open a study: a long token, a random completion code, the link and the places
    created = api.post(
        base,
        {"name": "main", "items_per_participant": 3, "time_limit_minutes": 30, "id_parameter": "pid"},
        format="json",
    )
    assert created.status_code == 201, created.json()
    body = created.json()
    assert len(body["token"]) >= 43 and len(body["completion_code"]) == 8
    assert body["link"] == f"http://testserver/study/{body['token']}/"
    assert body["places"] == {"full": 4, "leftover": 0, "missing": 12, "per_participant": 3, "held_by_expired": 0}
    assert [s["name"] for s in api.get(base).json()] == ["crowd study", "main"]
    url = f"{base}{body['id']}/"
    # bad settings are refused naming the field, and nothing changes
    refused = api.patch(url, {"completion_url": "javascript:alert(1)", "name": "x"}, format="json")
    assert refused.status_code == 400 and "completion_url" in refused.json()
    assert api.patch(url, {"items_per_participant": 0}, format="json").status_code == 400
    assert api.get(url).json()["name"] == "main"
    # change the completion settings (an empty code keeps the code)
    changed = api.patch(
        url,
        {"completion_url": "https://app.prolific.com/submissions/complete?cc={code}", "completion_code": ""},
        format="json",
    ).json()
    assert changed["completion_url"].endswith("cc={code}") and changed["completion_code"] == body["completion_code"]
    # close, reopen, rotate
    assert api.post(f"{url}open/", {"is_open": False}, format="json").json()["is_open"] is False
    assert api.post(f"{url}open/", {"is_open": True}, format="json").json()["is_open"] is True
    rotated = api.post(f"{url}rotate-token/").json()
    assert rotated["token"] != body["token"] and rotated["token_rotated_at"]


def test_participants_csv_release_and_api_tokens_through_the_api(lead_api):
    work, study, api = lead_api
    participant = participant_start(participant_id=participant_arrive(study=study, external_id="w-1").pk)
    base = f"/api/projects/{work.project.slug}/studies/{study.pk}/"
    rows = api.get(f"{base}participants/").json()
    assert [(r["external_id"], r["status"], r["items"], r["api_token"]) for r in rows] == [("w-1", "working", 2, False)]
    download = api.get(f"{base}participants/csv/")
    assert download["Content-Type"].startswith("text/csv")
    assert [r["external_id"] for r in csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode()))] == [
        "w-1"
    ]
    assert api.post(f"{base}release-expired/").json() == {"released": 0}
    # a participant has no API token until the lead grants one; revoking it ends its use
    granted = api.post(f"{base}participants/{participant.pk}/token/")
    assert granted.status_code == 201
    theirs = APIClient()
    theirs.credentials(HTTP_AUTHORIZATION=f"Token {granted.json()['token']}")
    assert len(theirs.get("/api/assignments/").json()["results"]) == 2
    assert api.delete(f"{base}participants/{participant.pk}/token/").status_code == 204
    revoked = theirs.get("/api/assignments/")
    assert revoked.status_code in (401, 403) and revoked.json()["detail"] == "Invalid token."


def test_annotators_participants_and_strangers_cannot_use_the_study_api(lead_api):
    work, study, _api = lead_api
    base = f"/api/projects/{work.project.slug}/studies/"
    annotator = user_make("ann-x")
    membership_add(project=work.project, user=annotator, role="annotator")
    stranger = user_make("stranger")
    participant_client = Client()
    participant_client.get(f"/study/{study.token}/", {"PROLIFIC_PID": "p-1"})
    participant = Participant.objects.get(external_id="p-1")
    for user, expected in ((annotator, 403), (stranger, 404), (participant.user, 403)):
        client = APIClient()
        client.force_authenticate(user)
        assert client.get(base).status_code == expected
        assert client.post(base, {"name": "mine"}, format="json").status_code == expected
        assert client.post(f"{base}{study.pk}/rotate-token/").status_code == expected
        assert client.get(f"{base}{study.pk}/participants/csv/").status_code == expected
    assert APIClient().get(base).status_code in (401, 403)


def test_a_time_limit_beyond_a_year_is_refused_with_the_field_named(lead_api):
    # found by the schema fuzzer: a huge limit overflowed the date arithmetic of the places (a 500)
    work, _study, api = lead_api
    base = f"/api/projects/{work.project.slug}/studies/"
    refused = api.post(base, {"name": "long", "time_limit_minutes": 10**12}, format="json")
    assert refused.status_code == 400 and "time_limit_minutes" in str(refused.json())
    assert [s["name"] for s in api.get(base).json()] == ["crowd study"]
