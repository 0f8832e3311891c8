"""A judge on a pairwise project: each system's win rate by prediction-powered inference (the all-humans
reference equal to the votes' shares counted here), and a judge named as a system that favours itself."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.models import Judge, JudgeKind, JudgeLabel
from annotator.services.imports import dialogues_import
from evaluation.judges.services.report import judge_report
from tests.pairwise.data import STRENGTHS, pairwise_items, write_lines

pytestmark = pytest.mark.django_db


def test_pairwise_win_rates_and_self_preference(make_project, tmp_path):
    project = make_project("pairwise", slug="judge-pairwise")
    items = pairwise_items(120, votes=3, seed=5)
    dialogues_import(project=project, paths=[write_lines(tmp_path / "items.jsonl", items)])
    judge = Judge.objects.create(project=project, name="alpha", kind=JudgeKind.IMPORTED)
    criterion = project.criteria.get()
    dialogue = dict(project.dialogues.values_list("external_id", "pk"))
    labels = []
    for item in items:
        a, b = (c["system"] for c in item["candidates"])
        prefers_a = a == "alpha" or (b != "alpha" and STRENGTHS[a] > STRENGTHS[b])
        labels.append(
            JudgeLabel(
                judge=judge,
                criterion=criterion,
                dialogue_id=dialogue[item["id"]],
                unit=0,
                value="a" if prefers_a else "b",
            )
        )
    JudgeLabel.objects.bulk_create(labels)
    report = judge_report(project, judge, resamples=100)
    rows = {r["system"]: r for r in report["ppi"]["systems"]}
    assert set(rows) == set(STRENGTHS) and all(r["target"] == "win_rate" for r in rows.values())
    for system, row in rows.items():
        shares = []
        for item in items:
            a, b = (c["system"] for c in item["candidates"])
            if system in (a, b):
                votes = [
                    1.0 if v["winner"] == system else 0.5 if v["winner"] == "tie" else 0.0 for v in item["annotations"]
                ]
                shares.append(np.mean(votes))
        assert row["all_humans"]["estimate"] == pytest.approx(np.mean(shares))
        assert row["ppi"]["n_labelled"] + row["ppi"]["n_unlabelled"] == len(shares)
    preference = report["bias"]["self_preference"]
    assert preference["system"] == "alpha" and preference["n"] == 60
    assert preference["judge_win_rate"] == 1.0 and preference["gap"] > 0
    assert report["bias"]["position"]["measured"] is False
