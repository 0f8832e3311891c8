"""The JSON-ready summary the stats payload carries: shape, finiteness and agreement with the parts."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from scoring.pairwise import PairwiseVotes, bootstrap_intervals, bradley_terry, pairwise_summary, sandwich_intervals

ROW_KEYS = {"system", "score", "elo", "ci", "sandwich_ci", "rank", "rank_ci", "wins", "losses", "ties"}


def records(n, seed, systems=("alpha", "beta", "gamma", "delta")):
    rng = np.random.default_rng(seed)
    strength = dict(zip(systems, np.linspace(0.8, -0.8, len(systems)), strict=True))
    out = []
    for k in range(n):
        a, b = rng.choice(systems, 2, replace=False)
        len_a, len_b = int(rng.integers(20, 300)), int(rng.integers(20, 300))
        d = strength[a] - strength[b] + 0.8 * (len_a - len_b) / (len_a + len_b)
        u = rng.random()
        p = 0.85 / (1 + math.exp(-d))
        winner = a if u < p else ("tie" if u < p + 0.1 else ("both_bad" if u < p + 0.15 else b))
        shown = a if rng.random() < 0.5 else b
        out.append({"a": a, "b": b, "winner": winner, "shown_first": shown, "item": f"c{k // 3}", "len_a": len_a,
                    "len_b": len_b, "covariates": {"markdown_headers": float(rng.integers(-2, 3))}})  # fmt: skip
    return out


def all_numbers(value):
    if isinstance(value, dict):
        return [x for v in value.values() for x in all_numbers(v)]
    if isinstance(value, list):
        return [x for v in value for x in all_numbers(v)]
    return [value] if isinstance(value, float) else []


@pytest.mark.parametrize("ties", ["half", "davidson"])
def test_summary_is_json_ready_and_agrees_with_its_parts(ties):
    votes = PairwiseVotes.from_records(records(900, 1))
    summary = pairwise_summary(votes, ties=ties, n_resamples=300, seed=2)
    text = json.dumps(summary, allow_nan=False)  # finite floats only
    assert json.loads(text) == summary
    assert all(math.isfinite(x) for x in all_numbers(summary))
    rows = summary["systems"]
    assert [set(r) for r in rows] == [ROW_KEYS] * 4
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    fit = bradley_terry(votes, ties)
    boot = bootstrap_intervals(votes, ties, 300, 2)
    sand = sandwich_intervals(votes, ties)
    for row in rows:
        k = votes.systems.index(row["system"])
        assert row["score"] == pytest.approx(fit.scores[k]) and row["elo"] == pytest.approx(fit.elo[k])
        assert row["ci"] == pytest.approx([boot.lower[k], boot.upper[k]])
        assert row["sandwich_ci"] == pytest.approx([sand.lower[k], sand.upper[k]])
        assert row["rank_ci"][0] <= row["rank"] <= row["rank_ci"][1]
    assert sum(r["wins"] for r in rows) == sum(r["losses"] for r in rows)
    assert sum(r["wins"] + r["ties"] / 2 for r in rows) == votes.n
    assert summary["ties"] == ties and summary["bootstrap"] == 300 and summary["n_votes"] == 900
    assert summary["both_bad"] == int(votes.both_bad.sum()) > 0
    assert (summary["tie_parameter"] is None) == (ties == "half")
    style = summary["style_controlled"]
    assert [set(r) for r in style["systems"]] == [ROW_KEYS] * 4
    assert set(style["coefficients"]) == {"length", "markdown_headers"}
    assert style["coefficients"]["length"] > 0  # longer answers won more often in the simulation
    assert style["coefficient_ci"]["length"][0] > 0
    wins = np.array(summary["win_matrix"]["wins"])
    assert (
        summary["win_matrix"]["systems"] == list(votes.systems) and wins.sum() == summary["position_bias"]["decisive"]
    )
    assert summary["intransitive_triads"]["triads_with_data"] == 4
    assert summary["vote_dropping"]["leader"] == rows[0]["system"]
    assert summary["estimable"] is True


def test_summary_of_too_few_votes_is_still_json_ready():
    one = PairwiseVotes.from_records([{"a": "x", "b": "y", "winner": "x"}], systems=["x", "y", "z"])
    summary = pairwise_summary(one, n_resamples=20)
    json.dumps(summary, allow_nan=False)
    assert [r["system"] for r in summary["systems"]] == ["x", "y"]  # z has no votes: no row
    assert summary["estimable"] is False and summary["style_controlled"]["coefficients"] == {}
    empty = PairwiseVotes.from_records([], systems=["x", "y"])
    summary = pairwise_summary(empty, n_resamples=20)
    json.dumps(summary, allow_nan=False)
    assert summary["systems"] == [] and summary["position_bias"]["share"] is None
