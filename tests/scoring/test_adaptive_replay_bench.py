"""The suite's slice of bench/adaptive_replay.py: the seeds' real labels replayed under fixed K and adaptive rules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.shared_data
def test_the_replay_bench_on_a_slice_of_dbdc3_and_stc3(shared_data):
    args = ["--data", str(shared_data), "--collections", "dbdc3-en", "stc3-en", "--items", "300", "--replays", "3"]
    args += ["--calibration-replays", "2", "--bisections", "8", "--oracle-replays", "4"]
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "adaptive_replay.py"), *args], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    lines = {line["collection"]: line for line in map(json.loads, result.stdout.splitlines())}
    assert set(lines) == {"dbdc3-en", "stc3-en"}
    for name, k, annotators in (("dbdc3-en", 15, 30), ("stc3-en", 10, 19)):
        line = lines[name]
        items = line["items"]
        assert items == 150 and line["calibration_items"] == 150 and line["replays"] == 3
        assert line["fixed"]["k"] == k
        assert line["fixed"]["judgements"]["mean"] == k * items
        assert line["equal_budget"]["judgements"]["mean"] == k * items
        assert line["full"]["judgements"]["mean"] == annotators * items
        adaptive = line["adaptive"]["judgements"]
        assert 3 * items <= adaptive["interval"][0] <= adaptive["mean"] <= adaptive["interval"][1] <= annotators * items
        assert line["saving"]["mean"] == pytest.approx(1 - adaptive["mean"] / (k * items), abs=1e-6)
        # the calibrated threshold keeps quality near fixed K's on the other half (within 10 %)
        assert line["adaptive"]["mean_jsd"]["mean"] <= 1.1 * line["fixed"]["mean_jsd"]["mean"]
        # fewer labels than all of them cannot beat the full-annotator gold itself
        assert 0 < line["fixed"]["mean_jsd"]["mean"] < 0.2
        oracle = line["oracle_saving"]
        assert -1 < oracle["held_out"] <= oracle["in_sample"] + 0.05 and oracle["in_sample"] < 1
        for policy in ("fixed", "adaptive"):
            assert -0.2 < line[policy]["alpha"]["mean"] < 1 and -0.2 < line[policy]["kappa"]["mean"] < 1
    # DBDC3's annotators agree little (alpha about 0.07 on all 30): the collected labels say so too
    assert abs(lines["dbdc3-en"]["fixed"]["alpha"]["mean"] - lines["dbdc3-en"]["full"]["alpha"]["mean"]) < 0.05


@pytest.mark.shared_data
def test_the_label_gold_replay_prints_the_issues_line_per_collection(shared_data):
    args = ["--data", str(shared_data), "--gold", "label", "--delta", "0.05", "--replays", "2", "--items", "300"]
    args += ["--collections", "dbdc3-en-eval", "dbdc3-ja-eval"]
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "adaptive_replay.py"), *args], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["collection"] for line in lines] == ["dbdc3-en-eval", "dbdc3-ja-eval", "all"]
    for line in lines[:2]:
        assert line["gold"] == "label" and line["delta"] == 0.05 and line["items"] == 300
        assert line["fixed"] == {"k": 30, "judgements": 30 * 300}
        adaptive = line["adaptive"]
        judgements = adaptive["judgements"]
        assert 3 * 300 <= judgements["interval"][0] <= judgements["mean"] <= judgements["interval"][1] < 30 * 300
        agreement, error = adaptive["agreement_with_full"], adaptive["error_rate"]
        assert error["mean"] == pytest.approx(1 - agreement["mean"], abs=1e-6)
        assert error["interval"][1] == pytest.approx(1 - agreement["interval"][0], abs=1e-6)
        assert 0 <= error["mean"] <= 0.1  # (delta 0.05: 300 turns and 2 replays leave room for noise)
        assert line["saving"]["mean"] == pytest.approx(1 - judgements["mean"] / (30 * 300), abs=1e-6)
        # a dialogue given whole stops with its last turn: it saves less than turns stopping on their own
        assert line["per_dialogue"]["saving"]["mean"] < line["saving"]["mean"]
        # no rule deciding a turn from its labels saves more at this expected error rate than the oracle bound
        oracle = line["oracle_bound"]
        assert oracle["expected_error"] <= 0.05 and line["saving"]["mean"] < oracle["saving"] < 0.9
        assert oracle["saving"] == pytest.approx(1 - oracle["labels_per_turn"] / 30, abs=1e-4)
    pooled = lines[2]
    assert pooled["fixed"]["judgements"] == 2 * 30 * 300
    assert pooled["adaptive"]["judgements"] == pytest.approx(
        sum(x["adaptive"]["judgements"]["mean"] for x in lines[:2])
    )
    assert pooled["oracle_bound"]["saving"] == pytest.approx(
        sum(x["oracle_bound"]["saving"] for x in lines[:2]) / 2, abs=1e-5
    )


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "rule",
    [["--label-rule", "bayes_optimal"], ["--label-rule", "per_unit_mixture"], ["--label-rule", "lead", "--lead", "5"]],
)
def test_the_label_gold_replay_replays_the_other_rules(shared_data, rule):
    args = ["--data", str(shared_data), "--gold", "label", "--delta", "0.05", "--replays", "1", "--items", "300"]
    args += ["--collections", "dbdc3-ja-eval", *rule]
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "adaptive_replay.py"), *args], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    (line,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert line["rule"]["kind"] == rule[1] and line["rule"].get("lead") == (5 if rule[1] == "lead" else None)
    judgements = line["adaptive"]["judgements"]["mean"]
    assert 3 * 300 < judgements < 30 * 300
    assert line["saving"]["mean"] == pytest.approx(1 - judgements / (30 * 300), abs=1e-6)
    assert 0 <= line["adaptive"]["error_rate"]["mean"] <= 0.1
    if rule[1] == "bayes_optimal":
        # set to an expected error of delta over units drawn from the prior, it spends about all of it on the real
        # ones (the mean change probability at the stops; not exactly delta: real turns are not the prior's draws)
        assert 0.6 * 0.05 < line["adaptive"]["expected_error"]["mean"] < 1.4 * 0.05


@pytest.mark.shared_data
def test_the_annotator_aware_replay_prints_both_rules_on_the_same_orders(shared_data):
    args = ["--data", str(shared_data), "--delta", "0.05", "--replays", "2", "--turns", "300"]
    args += ["--collections", "dbdc3-en-eval", "dbdc3-ja-eval"]
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "label_gold_annotators.py"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["collection"] for line in lines] == ["dbdc3-en-eval", "dbdc3-ja-eval", "all"]
    savings = {rule: [] for rule in ("platform", "annotator_aware")}
    for line in lines[:2]:
        assert line["turns"] == 300 and line["delta"] == 0.05
        for rule in savings:
            figures = line[rule]
            assert 3 < figures["labels_per_turn"] < 30
            assert figures["saving"]["mean"] == pytest.approx(1 - figures["labels_per_turn"] / 30, abs=1e-3)
            assert 0 <= figures["error_rate"]["mean"] <= 0.1
            savings[rule].append(figures["saving"]["mean"])
        # the annotators' habits move the evidence: the two rules stop differently
        assert line["platform"]["labels_per_turn"] != line["annotator_aware"]["labels_per_turn"]
    for rule, pooled in lines[2]["saving"].items():
        assert pooled == pytest.approx(sum(savings[rule]) / 2, abs=1e-5)
