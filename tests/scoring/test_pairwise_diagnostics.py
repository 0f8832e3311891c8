"""Position bias, intransitive triads, vote-dropping sensitivity and estimability on cases with known answers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from scoring.pairwise import (
    PairwiseVotes,
    bradley_terry,
    estimable,
    intransitive_triads,
    position_bias,
    vote_dropping_sensitivity,
    wilson_interval,
)


def votes_from(pairs_and_outcomes, names=("x", "y", "z", "w"), first=None):
    a, b, y = zip(*pairs_and_outcomes, strict=True)
    return PairwiseVotes(names, a, b, y, None, first, None, None)


def test_position_bias_counts_first_shown_wins_of_decisive_votes():
    # 10 decisive votes, the first-shown candidate wins 7; 3 ties are left out of the share
    from statsmodels.stats.proportion import proportion_confint

    outcome = [1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 0.5, 0.5, 0.5]
    first = [True, True, True, True, False, False, False, False, True, False, True, False, True]
    votes = PairwiseVotes(("x", "y"), [0] * 13, [1] * 13, outcome, None, first, None, None)
    bias = position_bias(votes)
    assert (bias["first_shown_wins"], bias["decisive"], bias["ties"], bias["n"]) == (7, 10, 3, 13)
    assert bias["share"] == pytest.approx(0.7)
    np.testing.assert_allclose(bias["ci"], proportion_confint(7, 10, method="wilson"), atol=1e-12)
    assert bias["p_value"] == pytest.approx(0.34375)  # two-sided exact binomial, 7 of 10


def test_wilson_interval_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    for k, n in [(0, 5), (5, 5), (13, 40), (500, 1000)]:
        np.testing.assert_allclose(wilson_interval(k, n, 0.9), proportion_confint(k, n, 0.1, "wilson"), atol=1e-12)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_no_position_bias_when_order_is_balanced_and_irrelevant():
    rng = np.random.default_rng(0)
    n = 4000
    outcome = (rng.random(n) < 0.7).astype(float)  # x better, whatever the order
    votes = PairwiseVotes(("x", "y"), np.zeros(n), np.ones(n), outcome, None, rng.random(n) < 0.5, None, None)
    bias = position_bias(votes)
    assert bias["ci"][0] < 0.5 < bias["ci"][1]


def test_triads_one_cycle_among_four_systems():
    # x > y > z > x is a cycle; w loses to everyone (its triads are transitive)
    votes = votes_from([(0, 1, 1), (1, 2, 1), (2, 0, 1), (0, 3, 1), (1, 3, 1), (2, 3, 1)])
    triads = intransitive_triads(votes)
    assert (triads["cyclic"], triads["triads_with_data"], triads["decided"]) == (1, 4, 4)
    assert triads["share"] == 0.25
    assert triads["examples"] == [["x", "y", "z"]]


def test_triads_need_votes_on_all_three_pairs_and_a_strict_majority():
    # no votes between z and w, so two triads have data (x y z, x y w); x-y is tied, so neither is decided
    votes = votes_from([(0, 1, 0.5), (1, 2, 1), (2, 0, 1), (0, 3, 1), (1, 3, 0)])
    triads = intransitive_triads(votes)
    assert (triads["cyclic"], triads["triads_with_data"], triads["decided"]) == (0, 2, 0)
    assert triads["share"] is None


def test_triads_count_matches_brute_force_on_random_majorities():
    rng = np.random.default_rng(3)
    s = 7
    names = tuple(f"s{i}" for i in range(s))
    pairs = [(i, j) for i, j in itertools.combinations(range(s), 2) if rng.random() < 0.8]
    records = [(i, j, float(rng.random() < 0.5)) for i, j in pairs for _ in range(3)]
    votes = votes_from(records, names)
    beats = {(i, j) for i, j in pairs if sum(y for p, q, y in records if (p, q) == (i, j)) >= 2}
    beats |= {(j, i) for i, j in pairs if (i, j) not in beats}
    cyclic = sum(
        1
        for i, j, k in itertools.combinations(range(s), 3)
        if {(i, j), (j, k), (k, i)} <= beats or {(i, k), (k, j), (j, i)} <= beats
    )
    with_data = sum(
        1 for t in itertools.combinations(range(s), 3) if all(p in pairs for p in itertools.combinations(t, 2))
    )
    triads = intransitive_triads(votes)
    assert triads["cyclic"] == cyclic and triads["triads_with_data"] == with_data == triads["decided"]


def test_vote_dropping_two_systems_exact():
    # x beats y 6 to 4: removing 2 of x's wins makes a tie (x stays on top), 3 puts y on top
    votes = votes_from([(0, 1, 1)] * 6 + [(0, 1, 0)] * 4, names=("x", "y"))
    result = vote_dropping_sensitivity(votes)
    assert (result["votes"], result["leader"], result["new_leader"]) == (3, "x", "y")
    assert result["removed"] == [{"winner": "x", "loser": "y", "tie": False, "votes": 3}]
    assert result["share"] == pytest.approx(0.3)


def brute_force_fewest(votes):
    """The fewest votes to remove (exhaustive over removal counts per (pair, outcome) cell)."""
    keys = list(zip(votes.a.tolist(), votes.b.tolist(), votes.outcome.tolist(), strict=True))
    cells = sorted(set(keys))
    counts = [keys.count(c) for c in cells]
    leader = int(np.argmax(bradley_terry(votes).scores))
    best = None
    for removal in itertools.product(*[range(c + 1) for c in counts]):
        total = sum(removal)
        if best is not None and total >= best:
            continue
        keep = [c for c, r, n in zip(cells, removal, counts, strict=True) for _ in range(n - r)]
        if not keep:
            continue
        a, b, y = (np.array(v) for v in zip(*keep, strict=True))
        scores = bradley_terry(PairwiseVotes(votes.systems, a, b, y, None, None, None, None)).scores
        scores = np.nan_to_num(scores, nan=-np.inf)
        if np.max(np.delete(scores, leader)) > scores[leader] + 1e-9:
            best = total
    return best


@pytest.mark.parametrize("seed", range(6))
def test_vote_dropping_is_an_achievable_upper_bound_close_to_the_exhaustive_minimum(seed):
    rng = np.random.default_rng(seed)
    strength = np.array([0.8, 0.3, 0.0])
    a = rng.integers(0, 3, 14)
    b = (a + rng.integers(1, 3, 14)) % 3
    y = (rng.random(14) < 1 / (1 + np.exp(strength[b] - strength[a]))).astype(float)
    votes = votes_from(list(zip(a, b, y, strict=True)), names=("x", "y", "z"))
    result = vote_dropping_sensitivity(votes)
    fewest = brute_force_fewest(votes)
    assert fewest is not None and result["votes"] is not None
    assert fewest <= result["votes"] <= fewest + 1
    # the reported removal does change the top (checked independently by refitting)
    keep = np.ones(votes.n, dtype=bool)
    for row in result["removed"]:
        won, lost = votes.systems.index(row["winner"]), votes.systems.index(row["loser"])
        match = np.flatnonzero(
            ((votes.a == won) & (votes.b == lost) & (votes.outcome == 1))
            | ((votes.a == lost) & (votes.b == won) & (votes.outcome == 0))
        )
        keep[match[: row["votes"]]] = False
    scores = bradley_terry(votes.subset(keep)).scores
    assert votes.systems[int(np.nanargmax(scores))] != result["leader"]


def test_estimable_needs_a_strongly_connected_win_graph():
    assert not estimable(votes_from([(0, 1, 1), (1, 2, 1)], names=("x", "y", "z")))  # x never lost
    assert estimable(votes_from([(0, 1, 1), (1, 2, 1), (2, 0, 1)], names=("x", "y", "z")))
    assert estimable(votes_from([(0, 1, 1), (1, 0, 0.5)], names=("x", "y")))
