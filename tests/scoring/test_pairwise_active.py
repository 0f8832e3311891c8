"""Active choice of pairs and the stop rule; the bench's small slice (active beats uniform)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scoring.pairwise import (
    PairwiseVotes,
    bootstrap_intervals,
    collection_state,
    next_pairs,
    pairwise_summary,
    sandwich_intervals,
)

ROOT = Path(__file__).resolve().parents[2]


def simulated(strength, per_pair, seed):
    rng = np.random.default_rng(seed)
    s = len(strength)
    i, j = np.triu_indices(s, 1)
    a, b = np.repeat(i, per_pair), np.repeat(j, per_pair)
    y = (rng.random(len(a)) < 1 / (1 + np.exp(strength[b] - strength[a]))).astype(float)
    return PairwiseVotes(tuple(f"s{k}" for k in range(s)), a, b, y, None, None, None, None)


def test_with_no_votes_the_first_picks_spread_over_the_systems():
    empty = PairwiseVotes(("a", "b", "c", "d"), [], [], [], None, None, None, None)
    pairs = next_pairs(empty, 4, k=6)
    assert {s for pair in pairs[:3] for s in pair} == {0, 1, 2, 3}  # three votes tie all four together
    assert len(set(pairs)) >= 5
    assert next_pairs(empty, 4, k=6, rule="chiang") == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]


def test_votes_go_to_the_systems_whose_intervals_still_overlap():
    # s0 is far ahead; s1, s2, s3 are close together: after a uniform start the close ones need the votes
    votes = simulated(np.array([3.0, 0.05, 0.0, -0.05]), 60, seed=1)
    intervals = sandwich_intervals(votes)
    assert intervals.lower[0] > intervals.upper[1:].max()
    pairs = next_pairs(votes, 4, k=30)
    assert sum(0 in p for p in pairs) <= 3 and len(pairs) == 30


def test_sampling_follows_the_seed():
    votes = simulated(np.array([0.5, 0.0, -0.5]), 10, seed=2)
    assert next_pairs(votes, 3, k=5, seed=3) == next_pairs(votes, 3, k=5, seed=3)
    assert all(p in [(0, 1), (0, 2), (1, 2)] for p in next_pairs(votes, 3, k=20, seed=4))
    with pytest.raises(ValueError, match="rule"):
        next_pairs(votes, 3, rule="thompson")
    with pytest.raises(ValueError, match="beyond"):
        next_pairs(votes, 2)


def test_collection_state_separated_budget_and_collecting():
    apart = simulated(np.array([1.5, 0.0, -1.5]), 300, seed=5)
    summary = pairwise_summary(apart, n_resamples=200)
    state = collection_state(summary, apart.n, 5000)
    assert state["state"] == "separated" and state["overlapping"] == []
    assert collection_state(summary, apart.n, 900)["state"] == "separated"  # separation wins over the budget

    close = simulated(np.array([0.05, 0.0, -0.05]), 30, seed=6)
    summary = pairwise_summary(close, n_resamples=200)
    state = collection_state(summary, close.n, 5000)
    assert state["state"] == "collecting" and len(state["overlapping"]) == 2
    assert "2 of 2 adjacent pairs" in state["reason"]
    spent = collection_state(summary, 5000, 5000)
    assert spent["state"] == "budget_spent" and "spent" in spent["reason"]
    # the sandwich intervals and an Intervals object answer the same way
    assert collection_state(summary, close.n, None, interval="sandwich_ci")["state"] == "collecting"
    assert collection_state(bootstrap_intervals(apart, n_resamples=200), apart.n, None)["state"] == "separated"


def test_never_separated_while_some_system_won_every_vote():
    # three undefeated-looking votes per pair: every bootstrap resample agrees, so the intervals are narrow,
    # but the scores do not exist (they run off to the ridge's bound)
    votes = PairwiseVotes(("x", "y", "z"), [0, 0, 0, 1, 1, 1], [1, 1, 1, 2, 2, 2], [1] * 6, None, None, None, None)
    summary = pairwise_summary(votes, n_resamples=100)
    assert summary["estimable"] is False
    state = collection_state(summary, 6, 100)
    assert state["state"] == "collecting" and "not yet estimable" in state["reason"]
    assert collection_state(sandwich_intervals(votes), 6, None, votes=votes)["state"] == "collecting"


def test_the_bench_small_slice_active_needs_fewer_votes_than_uniform():
    """The suite's slice of bench/pairwise_active.py (6 systems, 5 replays on the same seeds; about 10 s)."""
    args = ["--systems", "6", "--gap", "0.4", "--replays", "5", "--budget", "20000", "--fit-votes", "2000"]
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "pairwise_active.py"), *args], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    by_strategy = {line["strategy"]: line for line in lines if line["bench"] == "pairwise_active"}
    assert set(by_strategy) == {"intervals", "chiang", "uniform"}
    assert all(line["separated_share"] == 1.0 and line["correct_ranking_share"] == 1.0 for line in by_strategy.values())
    assert by_strategy["intervals"]["median_votes"] < 0.85 * by_strategy["uniform"]["median_votes"]
    fit_time = next(line for line in lines if line["bench"] == "bt_fit_time")
    assert fit_time["max_abs_diff"] < 1e-6
