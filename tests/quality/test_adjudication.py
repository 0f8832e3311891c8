"""Adjudication: leads and adjudicators settle disputed units; the final labels are exported beside the
distributions (JSON field, CSV column) and each annotator's agreement with them is reported."""

import csv
import io
import json

import pytest

from annotator.exporters import export_gold
from annotator.services.projects import membership_add
from evaluation.services.statistics import statistics_recompute
from tests.factories import api_client, breakdown_project, submit_all, user_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def disputed(tmp_path):
    work = breakdown_project(tmp_path, dialogues=4, annotators=3, k=3, slug="adj")
    for person, label in zip(work.annotators, "OTX"):
        submit_all(person, work.project, lambda a, k, u, label=label: label)
    adjudicator = user_make("adj-judge")
    membership_add(project=work.project, user=adjudicator, role="adjudicator")
    statistics_recompute(project_id=work.project.pk)
    return work, adjudicator


def test_adjudicated_labels_appear_in_both_distribution_exports(disputed, client):
    work, adjudicator = disputed
    d1, d2 = work.project.dialogues.order_by("position")[:2]
    # given the adjudicator settles one unit on the page and the lead another over the API
    client.force_login(adjudicator)
    listing = client.get("/projects/adj/adjudication/")
    assert listing.status_code == 200 and b"disputed-units" in listing.content
    page = client.post(f"/projects/adj/adjudication/{d1.pk}/breakdown/2/", {"value": "T", "note": "ambiguous reply"})
    assert page.status_code == 302
    api = api_client(work.lead)
    made = api.post(
        "/api/projects/adj/adjudications/",
        {"dialogue": d2.external_id, "criterion": "breakdown", "unit": 4, "value": "X", "note": "off topic"},
        format="json",
    )
    assert made.status_code == 201 and made.json()["adjudicator"] == work.lead.username
    # when the gold distributions are exported
    data = json.loads(export_gold(project=work.project, fmt="distributions-json"))
    rows = list(csv.DictReader(io.StringIO(export_gold(project=work.project, fmt="distributions-csv").decode())))
    # then the JSON items carry the final label and note beside the distribution
    items = {(i["dialogue"], i["unit"]): i for i in data["criteria"]["breakdown"]["items"]}
    assert (items[(d1.external_id, 2)]["adjudicated"], items[(d1.external_id, 2)]["adjudication_note"]) == (
        "T",
        "ambiguous reply",
    )
    assert items[(d2.external_id, 4)]["adjudicated"] == "X" and items[(d1.external_id, 4)]["adjudicated"] is None
    assert items[(d1.external_id, 2)]["distribution"] == pytest.approx({"O": 1 / 3, "T": 1 / 3, "X": 1 / 3})
    # and every CSV row of those units has it in the adjudicated column
    settled = {(r["dialogue"], r["unit"], r["adjudicated"], r["adjudication_note"]) for r in rows if r["adjudicated"]}
    assert settled == {(d1.external_id, "2", "T", "ambiguous reply"), (d2.external_id, "4", "X", "off topic")}
    assert sum(1 for r in rows if r["adjudicated"]) == 2 * 3  # one row per value of each settled unit
    # and each annotator's agreement with the final labels is reported
    reliability = statistics_recompute(project_id=work.project.pk).payload["reliability"]["annotators"]
    agreement = {name: r["adjudicated"] for name, r in reliability.items()}
    o, t, x = (p.username for p in work.annotators)
    assert agreement[o] == {"units": 2, "agree": 0, "agreement": 0.0}
    assert agreement[t]["agreement"] == 0.5 and agreement[x]["agreement"] == 0.5
    # and the API lists and removes them
    listed = api_client(adjudicator).get("/api/projects/adj/adjudications/").json()
    assert {(a["dialogue"], a["unit"], a["value"]) for a in listed} == {
        (d1.external_id, 2, "T"),
        (d2.external_id, 4, "X"),
    }
    assert api.delete(f"/api/projects/adj/adjudications/{d2.external_id}/breakdown/4/").status_code == 204


def test_values_are_checked_and_annotators_cannot_adjudicate(disputed, client):
    work, adjudicator = disputed
    d1 = work.project.dialogues.order_by("position").first()
    client.force_login(adjudicator)
    wrong = client.post(f"/projects/adj/adjudication/{d1.pk}/breakdown/2/", {"value": "Q"})
    assert wrong.status_code == 400 and b"not a value" in wrong.content
    assert client.get(f"/projects/adj/adjudication/{d1.pk}/breakdown/1/").status_code == 404  # a user turn
    api = api_client(adjudicator)
    refused = api.post(
        "/api/projects/adj/adjudications/",
        {"dialogue": d1.external_id, "criterion": "breakdown", "unit": 3, "value": "X"},
        format="json",
    )
    assert refused.status_code == 400
    annotator = api_client(work.annotators[0])
    assert annotator.get("/api/projects/adj/adjudications/").status_code == 403
    client.force_login(work.annotators[0])
    assert client.get("/projects/adj/adjudication/").status_code == 403
    # an adjudicator cannot open the lead's dashboard
    client.force_login(adjudicator)
    assert client.get("/projects/adj/dashboard/").status_code == 403
