"""Excluding annotators, and choosing a source: statistics and exports recompute exactly as without them."""

import json

import numpy as np
import pytest

from annotator.exporters import export_gold
from annotator.models import AssignmentStatus, Judgement
from annotator.services.exclusions import ExclusionError, annotator_exclude
from annotator.services.quality_items import quality_settings_update
from evaluation.models import ProjectStatistics
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.gold_cache import gold_arrays
from evaluation.services.incremental import statistics_with_running_figures
from evaluation.services.statistics import statistics_recompute
from scoring.agreement import (
    agreement_shares,
    fleiss_kappa,
    krippendorff_alpha_from_counts,
    randolph_kappa,
)
from tests.factories import api_client, breakdown_project, submit_all

pytestmark = pytest.mark.django_db


def counts_without(project, excluded_ids) -> np.ndarray:
    """Per-unit counts straight from the judgements table, leaving out ``excluded_ids``."""
    rows = (
        Judgement.objects.filter(assignment__dialogue__project=project, assignment__status=AssignmentStatus.SUBMITTED)
        .exclude(assignment__annotator_id__in=excluded_ids)
        .values_list("assignment__dialogue_id", "unit", "value")
    )
    units: dict = {}
    for d, u, v in rows:
        units.setdefault((d, u), [0, 0, 0])["OTX".index(v)] += 1
    return np.array([units[k] for k in sorted(units)])


def answered(project, payload: dict) -> dict:
    """The stored payload with the running figures from the live state, as every reader answers it."""
    return statistics_with_running_figures(project, payload)[0]


@pytest.mark.eager_tasks(reason="the figures and files the exclusion's jobs leave, against those computed without them")
def test_excluding_an_annotator_equals_recomputing_without_them(tmp_path, client, django_capture_on_commit_callbacks):
    # given four annotators on every item, the fourth answering against the others
    work = breakdown_project(tmp_path, dialogues=8, annotators=4, k=4, slug="excl")
    rng = np.random.default_rng(0)
    for i, person in enumerate(work.annotators):
        noise = rng.random(1000)
        submit_all(
            person,
            work.project,
            lambda a, k, u, i=i, noise=noise: "X" if i == 3 else "OTX"[int(noise[a.pk % 1000] > 0.7)],
        )
    before = answered(work.project, statistics_recompute(project_id=work.project.pk).payload)
    fingerprint = judgements_fingerprint(work.project)
    spammer = work.annotators[3]
    # when the lead excludes the fourth from the dashboard, with a reason
    client.force_login(work.lead)
    with django_capture_on_commit_callbacks(execute=True):  # the request's transaction commits
        response = client.post(
            "/projects/excl/dashboard/exclude/", {"annotator": spammer.username, "reason": "answers X"}
        )
    assert response.status_code == 302
    # then the fingerprint changed and the stored statistics were recomputed
    assert judgements_fingerprint(work.project) != fingerprint
    after = answered(work.project, ProjectStatistics.objects.get(project=work.project).payload)
    # and they equal the library called directly on the counts without them
    counts = counts_without(work.project, [spammer.pk])
    entry = after["criteria"]["breakdown"]
    assert entry["n_annotators"] == 3 and counts.sum(axis=1).max() == 3
    assert entry["fleiss_kappa"] == pytest.approx(fleiss_kappa(counts))
    assert entry["randolph_kappa"] == pytest.approx(randolph_kappa(counts))
    assert entry["krippendorff_alpha"]["nominal"] == pytest.approx(krippendorff_alpha_from_counts(counts))
    assert entry["krippendorff_alpha"]["ordinal"] == pytest.approx(krippendorff_alpha_from_counts(counts, "ordinal"))
    assert entry["agree_all"] == pytest.approx(agreement_shares(counts).agree_all)
    assert entry["fleiss_kappa"] != before["criteria"]["breakdown"]["fleiss_kappa"]
    # and the leave-one-out alpha of the others before equals alpha now
    loo = before["reliability"]["annotators"][spammer.username]["alpha"]["breakdown"]["without"]
    assert after["reliability"]["alpha"]["breakdown"] == pytest.approx(loo)
    # and the payload, the gold cache and every export say who is in
    assert after["population"]["excluded"] == [{"annotator": spammer.username, "reason": "answers X"}]
    assert spammer.username not in after["population"]["included"] and len(after["population"]["included"]) == 3
    assert spammer.username not in after["reliability"]["annotators"]
    assert np.array_equal(gold_arrays(project=work.project).criteria["breakdown"].unit_counts, counts)
    data = json.loads(export_gold(project=work.project, fmt="distributions-json"))
    assert data["annotators"]["excluded"][0]["reason"] == "answers X"
    assert all(spammer.username not in i["annotators"] and i["n"] == 3 for i in data["criteria"]["breakdown"]["items"])
    csv_rows = export_gold(project=work.project, fmt="distributions-csv").decode().splitlines()[1:]
    assert all(spammer.username not in row for row in csv_rows)
    api = api_client(work.lead)
    exported = api.get("/api/projects/excl/export/?format=dbdc")
    assert spammer.username.encode() not in exported.getvalue()
    who = api.get("/api/projects/excl/export/annotators/").json()
    assert [e["annotator"] for e in who["excluded"]] == [spammer.username] and spammer.username not in who["included"]
    assert "X-Annotators-Excluded" not in exported and exported["X-Annotators-Source"] == "all"
    # and letting them back in over the API restores the first figures
    with django_capture_on_commit_callbacks(execute=True):  # the jobs it asks for: the live state's rebuild too
        assert api.delete(f"/api/projects/excl/exclusions/{spammer.username}/").status_code == 204
    again = answered(work.project, statistics_recompute(project_id=work.project.pk).payload)
    assert again["criteria"] == before["criteria"]


def test_a_reason_is_required_and_only_annotators_can_be_excluded(tmp_path):
    work = breakdown_project(tmp_path, dialogues=2, annotators=2, k=2, slug="excl2")
    with pytest.raises(ExclusionError, match="reason"):
        annotator_exclude(project=work.project, username=work.annotators[0].username, reason=" ", excluded_by=work.lead)
    with pytest.raises(ExclusionError, match="not an annotator"):
        annotator_exclude(project=work.project, username=work.lead.username, reason="x", excluded_by=work.lead)
    api = api_client(work.lead)
    refused = api.post("/api/projects/excl2/exclusions/", {"annotator": "nobody", "reason": "x"}, format="json")
    assert refused.status_code == 400
    made = api.post(
        "/api/projects/excl2/exclusions/", {"annotator": work.annotators[0].username, "reason": "fast"}, format="json"
    )
    assert made.status_code == 201 and made.json()["excluded"] == [
        {"annotator": work.annotators[0].username, "reason": "fast"}
    ]
    assert api_client(work.annotators[1]).get("/api/projects/excl2/exclusions/").status_code == 403


def test_source_filter_keeps_imported_or_own_annotators(make_project, tmp_path):
    from annotator.services.demo import DEMO_DIR
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import membership_add
    from tests.factories import submit, user_make

    # given the demo DBDC logs (three imported annotators) and one own annotator who judged them too
    project = make_project("dbdc", slug="src")
    dialogues_import(project=project, paths=[DEMO_DIR / "dbdc"])
    own = user_make("src-own")
    membership_add(project=project, user=own, role="annotator")
    from annotator.models import Assignment

    for d in project.dialogues.all():
        submit(Assignment.objects.create(annotator=own, dialogue=d), lambda a, k, u: "X")
    everyone = statistics_recompute(project_id=project.pk).payload["criteria"]["breakdown"]["n_annotators"]
    # when the lead keeps only the project's own annotators, then only the imported ones
    quality_settings_update(project=project, source="own")
    own_only = statistics_recompute(project_id=project.pk).payload
    quality_settings_update(project=project, source="imported")
    imported_only = statistics_recompute(project_id=project.pk).payload
    # then each covers exactly that source
    assert everyone == 4
    assert own_only["population"] == {"source": "own", "included": ["src-own"], "excluded": []}
    assert own_only["criteria"]["breakdown"]["n_annotators"] == 1
    assert (
        imported_only["criteria"]["breakdown"]["n_annotators"] == 3
        and "src-own" not in imported_only["population"]["included"]
    )
    data = json.loads(export_gold(project=project, fmt="distributions-json"))
    assert data["annotators"]["source"] == "imported" and "src-own" not in json.dumps(data["criteria"])
