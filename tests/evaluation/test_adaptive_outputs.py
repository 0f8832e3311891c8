"""What an adaptive project says about itself: the stats payload, the distributions export (JSON and CSV), the
budget API and the power-analysis command, checked against the assignments and judgements tables read directly."""

from __future__ import annotations

import csv
import io
import json
import random

import numpy as np
import pytest

from annotator.exporters.distributions import export_distributions_csv, export_distributions_json
from annotator.handout.services.adaptive import adaptive_budget_update
from annotator.models import Assignment, AssignmentStatus, Judgement
from evaluation.services.statistics import statistics_recompute
from scoring.adaptive import power_analysis
from tests.annotator.test_adaptive_budget import CONTENTIOUS, run_crowd
from tests.factories import api_client, breakdown_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def collected(tmp_path):
    work = breakdown_project(tmp_path, dialogues=8, annotators=9, k=3, assign=False, slug="adapt")
    adaptive_budget_update(
        project=work.project, adaptive=True, min_k=3, max_k=9, budget=45, stop_rule="interval_width", threshold=0.45
    )
    run_crowd(work, random.Random(5))
    return work


def labels_by_item(project) -> dict[str, int]:
    rows = Assignment.objects.filter(dialogue__project=project, status=AssignmentStatus.SUBMITTED)
    found = dict.fromkeys(project.dialogues.values_list("external_id", flat=True), 0)
    for external_id in rows.values_list("dialogue__external_id", flat=True):
        found[external_id] += 1
    return found


def test_the_payload_says_each_items_labels_and_why_it_stopped(collected):
    payload = statistics_recompute(project_id=collected.project.pk, force=True).payload
    part = payload["adaptive"]
    truth = labels_by_item(collected.project)
    assert {i["dialogue"]: i["labels"] for i in part["items"]} == truth
    assert part["spent"] == sum(truth.values()) <= 45 and part["left"] == 45 - part["spent"]
    for item in part["items"]:
        assert item["stopped"] in ("stable", "at_maximum", "budget_spent", "")
        assert (item["stopped"] == "stable") == (item["state"] == "stable")
        if item["dialogue"] not in CONTENTIOUS:
            assert item["state"] == "stable" and item["labels"] < 9
    assert sum(part["states"].values()) == 8


def test_fixed_k_payload_has_no_adaptive_part(tmp_path):
    work = breakdown_project(tmp_path, dialogues=2, annotators=2, k=2, slug="fixed")
    assert "adaptive" not in statistics_recompute(project_id=work.project.pk, force=True).payload
    assert "item_labels" not in export_distributions_csv(work.project).decode().splitlines()[0]


def test_the_distributions_export_says_labels_and_stop_per_item(collected):
    truth = labels_by_item(collected.project)
    document = json.loads(export_distributions_json(collected.project))
    assert {e: s["labels"] for e, s in document["adaptive"].items()} == truth
    for item in document["criteria"]["breakdown"]["items"]:
        assert item["item_labels"] == truth[item["dialogue"]]
        assert item["stopped"] == document["adaptive"][item["dialogue"]]["stopped"]
    rows = list(csv.DictReader(io.StringIO(export_distributions_csv(collected.project).decode())))
    assert rows and all(int(r["item_labels"]) == truth[r["dialogue"]] for r in rows)
    assert {r["stopped"] for r in rows} <= {"stable", "at_maximum", "budget_spent", ""}


def test_the_budget_api_reads_and_changes_the_settings(collected):
    client = api_client(collected.lead)
    url = f"/api/projects/{collected.project.slug}/budget/"
    body = client.get(url).json()
    assert body["adaptive"] is True and body["min_k"] == 3 and body["budget"] == 45
    assert body["items"]["spent"] == sum(labels_by_item(collected.project).values())
    changed = client.patch(url, {"max_k": 12, "threshold": 0.3}, format="json")
    assert changed.status_code == 200 and changed.json()["max_k"] == 12
    refused = client.patch(url, {"min_k": 20}, format="json")
    assert refused.status_code == 400
    assert api_client(collected.annotators[0]).get(url).status_code == 403


def test_the_power_command_runs_the_library_on_the_labels_so_far(collected, manage):
    result = manage("power", "adapt", "--target", "alpha_width", "--width", "0.3", "--simulations", "30", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    # the pilot read straight from the judgements table: one label per (dialogue, unit, value)
    rows = list(
        Judgement.objects.filter(assignment__status=AssignmentStatus.SUBMITTED, criterion__key="breakdown")
        .order_by("assignment__dialogue_id", "unit", "pk")
        .values_list("assignment__dialogue_id", "unit", "value")
    )
    item = np.array([d * 2**32 + u for d, u, _v in rows])  # units in (dialogue, unit) order
    criterion = collected.project.criteria.get(key="breakdown")
    scale = list(dict.fromkeys(criterion.allowed_values()))
    value = np.array([scale.index(v) for _d, _u, v in rows], dtype=float)  # (O, T, X: ranks on ordered levels)
    expected = power_analysis(
        item, value, target="alpha_width", width=0.3, ks=range(2, 21), n_sim=30, alpha_level=criterion.level, seed=0
    )
    assert out["pilot_labels"] == len(rows) and out["pilot_items"] == len(set(item.tolist()))
    assert [r["k"] for r in out["rows"]] == [r["k"] for r in expected]
    assert [r["meets"] for r in out["rows"]] == [r["meets"] for r in expected]
    assert np.allclose([r["width"] for r in out["rows"]], [r["width"] for r in expected])
    text = manage("power", "adapt", "--width", "0.3", "--simulations", "30")
    assert "annotators per item needed:" in text.stdout
    assert manage("power", "nope").returncode != 0
