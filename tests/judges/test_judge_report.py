"""A judge's report from the project's tables: the service against the library on the same arrays, the
command and the API (leads only), and the judge never entering the humans' figures."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from annotator.selectors.judgement_arrays import project_judgements
from annotator.services.judgements import judgements_save
from evaluation.judges.services.report import judge_report
from scoring.judges.agreement import majority_labels
from tests.factories import api_client, judge_copying, project_with_work, random_values

pytestmark = pytest.mark.django_db


def _rated_project_with_judge(slug: str):
    """An STC-3 project, four annotators giving random values, and a judge copying the first of them with
    a distribution on each label."""
    rng = np.random.default_rng(3)
    work = project_with_work("stc3", slug=slug, annotators=4)
    for person in work.annotators:
        for assignment in work.assignments_of(person):
            judgements_save(
                assignment_id=assignment.pk, user=person, values=random_values(assignment, rng), submit=True
            )
    judge = judge_copying(work.project, 0, "copycat")
    return work, judge, project_judgements(work.project)


def test_report_matches_the_library_on_the_same_arrays():
    from sklearn.metrics import cohen_kappa_score

    work, judge, humans = _rated_project_with_judge("judge-report")
    report = judge_report(work.project, judge, resamples=200)
    json.dumps(report)  # JSON-ready
    assert set(report) == {"judge", "agreement", "alt_test", "calibration", "bias", "ppi"}
    assert {"epsilon", "winning_rate", "passed", "rho", "per_annotator"} <= set(report["alt_test"])
    for key, data in humans.items():
        counts = data.counts()
        first = data.annotator == 0
        judge_values = np.full(data.n_units, -1)
        judge_values[data.unit[first]] = data.value[first]
        both = (judge_values >= 0) & (counts.sum(axis=1) > 0)
        expected = cohen_kappa_score(judge_values[both], majority_labels(counts[both]), labels=range(len(data.values)))
        figure = report["agreement"][key]["kappa"]
        assert report["agreement"][key]["n_items"] == both.sum()
        if np.isfinite(expected):
            assert figure["value"] == pytest.approx(expected)
        assert report["calibration"][key]["ece"] >= 0
        assert report["calibration"][key]["bins"][7]["count"] == both.sum()  # every confidence is 0.8
    assert report["ppi"]["systems"], "a PPI row per system and criterion"
    for row in report["ppi"]["systems"]:
        assert row["design"] == "subsample" and row["human_only"]["n_labelled"] >= 2
    ordered = [k for k, d in humans.items() if d.criterion.level != "nominal"]
    assert set(report["bias"]["verbosity"]) == set(ordered)


def test_the_judge_does_not_change_the_humans_figures():
    work, judge, humans = _rated_project_with_judge("judge-report-apart")
    before = {k: d.counts().tolist() for k, d in project_judgements(work.project).items()}
    judge_report(work.project, judge, resamples=50)
    assert {k: d.counts().tolist() for k, d in humans.items()} == before


def test_command_prints_the_report_as_json_and_refuses_an_unknown_judge():
    work, _judge, _humans = _rated_project_with_judge("judge-report-cli")
    out = StringIO()
    call_command("judge_report", work.project.slug, "copycat", "--json", "--epsilon", "0.1", stdout=out)
    report = json.loads(out.getvalue())
    assert report["alt_test"]["epsilon"] == 0.1 and report["judge"]["name"] == "copycat"
    text = StringIO()
    call_command("judge_report", work.project.slug, "copycat", stdout=text)
    assert "Margin ε = 0.1, the crowd workers' and the strictest" in text.getvalue()  # who annotated: not stated
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no judge"):
        call_command("judge_report", work.project.slug, "nobody")


@pytest.mark.eager_tasks(reason="the report the API answers once its job has computed it")
def test_api_report_for_leads_only():
    work, _judge, _humans = _rated_project_with_judge("judge-report-api")
    url = f"/api/projects/{work.project.slug}/judges/copycat/report/"
    lead = api_client(work.lead)
    response = lead.get(url, {"epsilon": "0.15"})
    assert response.status_code == 200, response.content
    assert response.json()["alt_test"]["epsilon"] == 0.15
    assert lead.get(f"/api/projects/{work.project.slug}/judges/nobody/report/").status_code == 404
    assert lead.get(url, {"epsilon": "3"}).status_code == 400
    assert api_client(work.annotators[0]).get(url).status_code == 403


def test_the_margin_follows_who_annotated():
    from annotator.models import Participant, Study
    from evaluation.judges.services.margin import alt_test_margin

    work, judge, _humans = _rated_project_with_judge("judge-report-margin")
    project, people = work.project, [a.pk for a in work.annotators]
    assert alt_test_margin(project=project, annotators=people) == {
        "epsilon": 0.1,
        "annotators": "crowd",
        "source": "not_stated",
    }
    study = Study.objects.create(project=project, name="crowd")
    Participant.objects.create(study=study, user=work.annotators[1], external_id="P1")
    assert alt_test_margin(project=project, annotators=people)["source"] == "study"
    assert alt_test_margin(project=project, annotators=people[:1])["source"] == "not_stated"  # not counted
    project.annotators_are = "experts"
    project.save()
    assert alt_test_margin(project=project, annotators=people) == {
        "epsilon": 0.2,
        "annotators": "experts",
        "source": "project",
    }
    assert alt_test_margin(project=project, annotators=people, epsilon=0.05)["source"] == "given"
    report = judge_report(project, judge, resamples=50)
    assert report["alt_test"]["epsilon"] == 0.2 and report["alt_test"]["margin"]["source"] == "project"
    # four annotators with fewer than 30 items each: nobody is tested, and the verdict says so (no reference)
    assert report["alt_test"]["winning_rate"] is None and report["alt_test"]["verdict"] == "not_tested"
    assert report["alt_test"]["references"]["best_trivial"] is None
    for key, c in report["alt_test"]["criteria"].items():
        assert c["verdict"] == "not_tested"
        expected = {"neg_rmse", "accuracy"} if key in ("A", "S", "E") else {"accuracy"}
        assert set(c["alignments"]) == expected and c["scoring"] in expected
