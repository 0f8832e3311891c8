"""Import jobs through the API with commits as in production: when the job has run by the time the answer is built
(here it runs in the caller as the request commits), the answer says how it ended (201 with its counts, 400 with
the error); tests/api/test_api.py has the 202 of a job still waiting for a worker."""

import io
import json

import pytest

from annotator.models import Dialogue, ImportBatch
from annotator.services.projects import membership_add
from tests.api.test_api import client_for
from tests.fixtures.collections import dbdc_dialogue, stc3_dialogues

pytestmark = pytest.mark.django_db(transaction=True)


def upload(name: str, data) -> io.BytesIO:
    raw = io.BytesIO(json.dumps(data).encode())
    raw.name = name
    return raw


@pytest.mark.eager_tasks(reason="the answer built from an import whose job has ended (done or refused)")
def test_a_finished_import_answers_201_and_a_refused_one_400_naming_the_dialogue(make_project, make_user):
    project = make_project("dbdc", slug="jobs")
    lead = make_user("jobs-lead")
    membership_add(project=project, user=lead, role="lead")
    client = client_for(lead)
    done = client.post("/api/projects/jobs/dialogues/import/", {"file": upload("a.log.json", dbdc_dialogue("a"))})
    assert done.status_code == 201, done.content
    assert done.json()["status"] == "done" and done.json()["dialogues"] == 1 and done.json()["judgements"] == 6
    assert ImportBatch.objects.get(pk=done.json()["id"]).created_by == lead
    # an STC-3 file into the breakdown project: refused, naming the dialogue and what the preset needs
    refused = client.post("/api/projects/jobs/dialogues/import/", {"file": upload("s.json", stc3_dialogues())})
    assert refused.status_code == 400
    body = refused.json()
    assert body["status"] == "failed" and body["file"] == "s.json" and body["record"] == "d1"
    assert "has no system turn by S (its speakers are customer and helpdesk)" in body["message"]
    assert list(Dialogue.objects.filter(project=project).values_list("external_id", flat=True)) == ["a"]
    assert ImportBatch.objects.get(pk=body["id"]).source is None  # the upload is not kept once read
