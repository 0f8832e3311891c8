"""Judges on DBDC3 English eval (30 annotators per system turn, who agree little: Krippendorff's alpha about
0.1): a typical annotator held out of the pool, a judge answering at random and a judge that always answers
"PB" (T). The random judge fails the alternative annotator test, agrees with the majority no better than
chance and does not narrow the PPI intervals; the held-out human agrees far better and has the higher advantage
probability. The constant judge is "not informative here" (it passes under the negative RMSE, which the
middle label minimises when the humans disagree), and the held-out human is compared with that reference;
``judge_report --json`` carries the references."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from annotator.services.imports import dialogues_import
from evaluation.judges.services.report import judge_report
from tests.factories import judge_constant, judges_held_out_and_random

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.shared_data,
]


def test_held_out_human_random_and_constant_judges_on_dbdc3_en(dbdc_dir, make_project):
    project = make_project("dbdc", slug="dbdc3-judges")
    dialogues_import(project=project, paths=[dbdc_dir / "eval"])
    held, rand, _user = judges_held_out_and_random(project)
    judge_constant(project, "T", "always-PB")
    human, random = judge_report(project, held, resamples=200), judge_report(project, rand, resamples=200)
    assert random["alt_test"]["margin"] == {"epsilon": 0.1, "annotators": "crowd", "source": "not_stated"}
    assert not random["alt_test"]["passed"] and random["alt_test"]["winning_rate"] < 0.3
    assert len(random["alt_test"]["per_annotator"]) > 100  # every crowd worker with 30+ turns is tested
    random_kappa, human_kappa = random["agreement"]["breakdown"]["kappa"], human["agreement"]["breakdown"]["kappa"]
    assert random_kappa["ci"][0] < 0 < random_kappa["ci"][1] or abs(random_kappa["value"]) < 0.05
    assert human_kappa["value"] > 0.1 and human_kappa["ci"][0] > random_kappa["ci"][1]
    assert human["alt_test"]["rho"] > random["alt_test"]["rho"]
    alpha = random["agreement"]["breakdown"]
    assert alpha["alpha_with_judge"]["value"] < alpha["alpha_humans"]["value"]  # noise lowers the pool's alpha
    assert all(row["width_ratio"] > 1 for row in random["ppi"]["systems"])
    assert random["calibration"]["breakdown"]["ece"] > 0.1

    out = StringIO()
    call_command("judge_report", project.slug, "always-PB", "--json", stdout=out)
    constant = json.loads(out.getvalue())["alt_test"]
    c = constant["criteria"]["breakdown"]
    # under the negative RMSE (the paper's alignment for numeric labels) always "PB" wins against nearly everyone
    rmse = c["alignments"]["neg_rmse"]
    assert rmse["judge"]["passed"] and rmse["judge"]["winning_rate"] > 0.9
    assert rmse["best_trivial"] == {**rmse["best_trivial"], "kind": "constant", "label": "T", "kappa": 0.0}
    assert rmse["verdict"] == "not_informative" and not rmse["against_best"]["beats"]
    # the verdict's alignment is chosen from the references: a held-out annotator is nearer the best trivial
    # answer under accuracy; the constant judge is not informative there either
    assert c["scoring"] == "accuracy" and c["scoring_default"] == "neg_rmse"
    assert constant["verdict"] == c["verdict"] == "not_informative"
    assert c["human_agreement"]["alpha"] < 0.2 and c["human_agreement"]["n_items"] == 2000
    references = {r["kind"] for r in c["alignments"]["accuracy"]["references"]}
    assert references == {"constant", "random", "held_out"}
    assert constant["references"]["best_trivial"]["criteria"]["breakdown"]["label"] == "O"  # the commonest label
    assert constant["references"]["held_out"]["criteria"]["breakdown"]["kind"] == "held_out"

    # the held-out human compared with that reference, both answering the human's items: under the negative
    # RMSE no human beats always "PB" (the test cannot tell a human from a constant there); under accuracy the
    # human beats always "O": that is why the verdict uses accuracy
    assert rmse["held_out"]["kind"] == "held_out" and rmse["held_out_against_best"]["annotators"] > 100
    assert not rmse["held_out_against_best"]["beats"] and rmse["held_out_baseline"]["passed"]
    accuracy = c["alignments"]["accuracy"]
    assert c["held_out"] == accuracy["held_out"] and accuracy["held_out_against_best"]["beats"]
    assert accuracy["held_out_baseline"]["rho"] < accuracy["held_out"]["rho"]

    # a typical annotator held out and imported as a judge is informative: it beats the best trivial reference
    # on its own items, and fails the test at the crowd workers' margin
    h = human["alt_test"]["criteria"]["breakdown"]
    assert h["against_best"]["beats"] and h["verdict"] == human["alt_test"]["verdict"] == "failed"

    text = StringIO()
    call_command("judge_report", project.slug, "always-PB", stdout=text)
    printed = text.getvalue()
    assert "Verdict: not informative here." in printed
    assert "breakdown: not informative here. The judge does no better than always “O”" in printed
    assert "The annotators agree little: Krippendorff's α (ordinal) = " in printed
    assert "a human beats the trivial answer here" in printed
