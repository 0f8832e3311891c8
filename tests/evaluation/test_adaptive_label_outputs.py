"""What a label-gold project says about itself: per unit its labels, its label, whether it is settled and at what
delta in the distributions export (JSON and CSV); the rule and its error rate in the stats payload, the budget API
and the report's methods; the expected labels per item for a delta in the power command. Each checked against the
library's rule on the counts read from the judgements table."""

from __future__ import annotations

import csv
import io
import json
import random

import numpy as np
import pytest

from annotator.exporters.distributions import export_distributions_csv, export_distributions_json
from annotator.handout.services.adaptive import adaptive_budget_update
from evaluation.services.report.content import project_report
from evaluation.services.statistics import statistics_recompute
from scoring.adaptive import LabelStopRule, fit_dirichlet_prior, label_power
from tests.annotator.test_adaptive_budget import run_crowd
from tests.annotator.test_adaptive_label_gold import counts_from_judgements
from tests.factories import api_client, breakdown_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def collected(tmp_path):
    work = breakdown_project(tmp_path, dialogues=8, annotators=10, k=3, assign=False, slug="lgo")
    adaptive_budget_update(
        project=work.project, adaptive=True, min_k=3, max_k=10, budget=50, label_gold={"breakdown": 0.0}, delta=0.05
    )
    run_crowd(work, random.Random(9))
    return work


def the_rule(project) -> tuple[LabelStopRule, np.ndarray, list[str]]:
    counts, dialogue_of = counts_from_judgements(project)
    return LabelStopRule(0.05, 3, 10, 0.0, tuple(fit_dirichlet_prior(counts))), counts, dialogue_of


def test_the_export_says_per_unit_its_label_whether_it_is_settled_and_at_what_delta(collected):
    rule, counts, _ = the_rule(collected.project)
    change = dict(zip(map(tuple, counts.tolist()), rule.statistic(counts).tolist(), strict=False))
    document = json.loads(export_distributions_json(collected.project))
    items = document["criteria"]["breakdown"]["items"]
    assert len(items) == 16
    for item in items:
        row = tuple(float(item["counts"][v]) for v in "OTX")
        assert item["n"] == sum(row) and item["delta"] == 0.05
        assert item["label"] == "OTX"[int(np.argmax(row))]  # (ties to the first: argmax gives the first)
        assert item["change_probability"] == pytest.approx(change[row])
        assert item["settled"] == (item["n"] >= 10 or (item["n"] >= 3 and change[row] <= 0.05))
    rows = list(csv.DictReader(io.StringIO(export_distributions_csv(collected.project).decode())))
    by_unit = {(i["dialogue"], str(i["unit"])): i for i in items}
    for row in rows:
        item = by_unit[(row["dialogue"], row["unit"])]
        assert row["label"] == item["label"] and row["delta"] == "0.05"
        assert row["settled"] == ("true" if item["settled"] else "false")
        assert float(row["change_probability"]) == item["change_probability"]


def test_the_payload_api_and_report_state_the_rule_and_its_error_rate(collected):
    rule, counts, dialogue_of = the_rule(collected.project)
    n = counts.sum(axis=1)
    change = rule.statistic(counts)
    settled = (n >= 10) | ((n >= 3) & (change <= 0.05))
    payload = statistics_recompute(project_id=collected.project.pk, force=True).payload
    part = payload["adaptive"]["label_gold"]["breakdown"]
    assert part["units"] == len(counts) and part["settled"] == int(settled.sum())
    assert part["delta"] == 0.05 and part["threshold"] == 0.0
    assert part["prior"] == pytest.approx(list(rule.alpha))
    assert part["expected_error"] == pytest.approx(float(change[settled].mean()))
    per_item = {i["dialogue"]: (i["settled_units"], i["label_units"]) for i in payload["adaptive"]["items"]}
    for external_id, (settled_units, units) in per_item.items():
        mine = [i for i, d in enumerate(dialogue_of) if d == external_id]
        assert (settled_units, units) == (int(settled[mine].sum()), len(mine))
    body = api_client(collected.lead).get("/api/projects/lgo/budget/").json()
    assert body["label_gold"] == {"breakdown": 0.0} and body["delta"] == 0.05
    assert body["labels"]["breakdown"]["settled"] == part["settled"]
    methods = project_report(project=collected.project).methods
    assert "between 3 and 10 annotators" in methods
    assert "at most δ = 0.05" in methods and "label of 10 annotators" in methods
    assert f"{part['settled']} of {part['units']} units of breakdown settled" in methods
    assert f"expected error rate among them is {part['expected_error']:.4f}" in methods
    japanese = project_report(project=collected.project, language="ja").methods
    assert "δ = 0.05" in japanese and japanese != methods


def test_the_api_changes_label_gold_and_refuses_bad_values(collected):
    client = api_client(collected.lead)
    url = "/api/projects/lgo/budget/"
    changed = client.patch(url, {"label_gold": {"breakdown": 0.5}, "delta": 0.01}, format="json")
    assert changed.status_code == 200, changed.json()
    assert changed.json()["label_gold"] == {"breakdown": 0.5} and changed.json()["delta"] == 0.01
    for bad in ({"label_gold": {"nope": 0.0}}, {"label_gold": {"breakdown": 2}}, {"delta": 0.7}):
        refused = client.patch(url, bad, format="json")
        assert refused.status_code == 400, bad
    assert client.get(url).json()["label_gold"] == {"breakdown": 0.5}


def test_the_power_command_gives_the_labels_per_item_for_a_delta(collected, manage):
    result = manage("power", "lgo", "--target", "label_gold", "--delta", "0.05", "--k-max", "10", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    counts, _ = counts_from_judgements(collected.project)
    expected = label_power(
        counts, max_k=10, deltas=[0.01, 0.02, 0.05, 0.1], units_per_item=2, n_units=2000, seed=0
    )  # the pilot read straight from the judgements table; two asked turns per dialogue
    assert out["units_per_item"] == 2 and out["pilot_labels"] == int(counts.sum())
    assert len(out["rows"]) == 4 and all(got == pytest.approx(row) for got, row in zip(out["rows"], expected))
    assert out["asked"] == pytest.approx(expected[2]) and out["delta"] == 0.05
    text = manage("power", "lgo", "--target", "label_gold", "--delta", "0.05", "--k-max", "10").stdout
    assert f"{expected[2]['labels_per_item']:.1f} annotators per item" in text
