"""Judges on DBDC3 English eval (30 annotators per system turn): a typical annotator held out of the pool
and a judge answering at random. The random judge fails the alternative annotator test, agrees with the
majority no better than chance and does not narrow the PPI intervals; the held-out human agrees far
better and has the higher advantage probability."""

from __future__ import annotations

import pytest

from annotator.services.imports import dialogues_import
from evaluation.services.judges.report import judge_report
from tests.factories import judges_held_out_and_random

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.shared_data,
]


def test_held_out_human_and_random_judge_on_dbdc3_en(dbdc_dir, make_project):
    project = make_project("dbdc", slug="dbdc3-judges")
    dialogues_import(project=project, paths=[dbdc_dir / "eval"])
    held, rand, _user = judges_held_out_and_random(project)
    human, random = judge_report(project, held, resamples=200), judge_report(project, rand, resamples=200)
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
