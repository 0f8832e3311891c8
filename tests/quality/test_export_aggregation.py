"""The export endpoint and command take --aggregation for the distribution formats only."""

import json

import pytest

from tests.factories import api_client, breakdown_project, submit_all

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.eager_tasks(reason="the export's job done in the request that asks for it, whose answer is its file"),
]


def test_api_export_with_a_model_and_refusals(tmp_path):
    work = breakdown_project(tmp_path, dialogues=6, annotators=3, k=3, slug="agg")
    for i, person in enumerate(work.annotators):
        submit_all(person, work.project, lambda a, k, u, i=i: "OTX"[(a.dialogue_id + u * i) % 3])
    api = api_client(work.lead)
    response = api.get("/api/projects/agg/export/?format=distributions-json&aggregation=dawid-skene")
    assert response.status_code == 200
    data = json.loads(response.getvalue())
    assert data["aggregation"] == "dawid-skene" and set(data["reliability"]["breakdown"]) == {
        p.username for p in work.annotators
    }
    assert all(abs(sum(i["distribution"].values()) - 1) < 1e-9 for i in data["criteria"]["breakdown"]["items"])
    csv_body = api.get("/api/projects/agg/export/?format=distributions-csv&aggregation=glad").getvalue().decode()
    assert csv_body.splitlines()[1].split(",")[10] == "glad"
    refused = api.get("/api/projects/agg/export/?format=dbdc&aggregation=glad")
    assert refused.status_code == 400 and "aggregation" in refused.json()
    assert api.get("/api/projects/agg/export/?format=distributions-json&aggregation=best").status_code == 400
