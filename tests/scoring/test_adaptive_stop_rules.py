"""The stop rules' statistics against independent computations, and each item's state."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from scoring.adaptive import AT_MAXIMUM, OPEN, STABLE, StopRule, expected_gold_change, interval_width, unit_states
from scoring.measures import jsd

SMALL_CASES = [[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 3, 3], [7, 0, 1], [0, 5, 5], [12, 0, 0], [1, 2, 3, 4, 0]]


def brute_force_change(counts, prior):
    """Enumerate the next label: P(k) from the Dirichlet-multinomial, the JSD by scoring.measures.jsd."""
    counts = np.asarray(counts, dtype=float)
    n, k = counts.sum(), len(counts)
    gold = counts / n if n else np.full(k, 1 / k)
    total = 0.0
    for label in range(k):
        after = counts.copy()
        after[label] += 1
        probability = (counts[label] + prior) / (n + k * prior)
        total += probability * float(jsd(gold, after / after.sum()))
    return total


@pytest.mark.parametrize("prior", [0.5, 1.0, 0.1])
def test_expected_change_is_the_enumerated_expectation(prior):
    for counts in SMALL_CASES:
        got = expected_gold_change([counts], prior)[0]
        assert got == pytest.approx(brute_force_change(counts, prior), abs=1e-12), counts


def test_expected_change_matches_a_monte_carlo_of_the_posterior():
    """Draw theta from Dirichlet(counts + prior), the next label from theta; average the gold's JSD."""
    rng = np.random.default_rng(7)
    counts = np.array([[4, 1, 0], [2, 2, 2], [9, 0, 0]], dtype=float)
    for row in counts:
        theta = rng.dirichlet(row + 0.5, size=200_000)
        label = (rng.random(len(theta))[:, None] > np.cumsum(theta, axis=1)).sum(axis=1)
        after = row[None, :] + np.eye(3)[label]
        estimate = float(
            jsd(np.broadcast_to(row / row.sum(), after.shape), after / after.sum(axis=1, keepdims=True)).mean()
        )
        assert expected_gold_change(row[None, :], 0.5)[0] == pytest.approx(estimate, rel=0.02)


def test_expected_change_is_vectorised_and_shrinks_with_labels():
    counts = np.array(SMALL_CASES[:-1], dtype=float)
    together = expected_gold_change(counts)
    assert together == pytest.approx([expected_gold_change(row[None, :])[0] for row in counts])
    assert (expected_gold_change((counts + 1) * 4) < expected_gold_change(counts + 1)).all()


def test_interval_width_is_scipys_widest_beta_interval():
    from scipy import stats

    rng = np.random.default_rng(3)
    counts = rng.integers(0, 12, size=(40, 4))
    for level, prior in itertools.product([0.95, 0.8], [0.5, 1.0]):
        got = interval_width(counts, level, prior)
        for row, width in zip(counts, got, strict=True):
            a = row + prior
            expected = max(np.diff(stats.beta(ak, a.sum() - ak).interval(level))[0] for ak in a)
            assert width == pytest.approx(expected, abs=1e-10)
    # more labels, narrower; agreement, narrower
    assert interval_width([[20, 0, 0]])[0] < interval_width([[7, 7, 6]])[0] < interval_width([[2, 2, 2]])[0]


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="categories"):
        expected_gold_change([1, 2, 3])
    with pytest.raises(ValueError, match="prior"):
        interval_width([[1, 2]], prior=0)
    with pytest.raises(ValueError, match="unknown stop rule"):
        StopRule("entropy")
    with pytest.raises(ValueError, match="min_k"):
        StopRule(min_k=5, max_k=3)


def test_states_respect_min_k_max_k_and_every_criterion():
    rule = StopRule("interval_width", threshold=0.3, min_k=4, max_k=20)
    counts = {
        "A": [[3, 0, 0], [30, 0, 0], [19, 1, 0], [5, 5, 5], [20, 0, 0]],
        "B": [[3, 0], [30, 0], [20, 0], [15, 0], [10, 10]],
    }
    # item 0 agrees but has fewer than min_k labels; item 1 is settled on both; item 2 on A only? (19, 1) is narrow
    states = unit_states(counts, rule).tolist()
    assert states[0] == OPEN
    assert states[1] == STABLE
    assert states[2] == STABLE
    assert states[3] == OPEN  # A is contentious, 15 < max_k
    assert states[4] == AT_MAXIMUM  # A is settled, B is not, and the item has its 20 labels


def test_an_item_with_turns_is_stable_when_every_turn_is():
    rule = StopRule("expected_change", threshold=0.001, min_k=3, max_k=None, prior=0.1)
    dialogue = {"quality": [[12, 0, 0], [12, 0, 0]]}
    turns = {"nugget": [[12, 0], [12, 0], [6, 6]]}
    items = {"nugget": [0, 0, 1]}
    assert unit_states({**dialogue, **turns}, rule, items).tolist() == [STABLE, OPEN]
    turns_settled = {"nugget": [[12, 0], [12, 0], [12, 0]]}
    assert unit_states({**dialogue, **turns_settled}, rule, items).tolist() == [STABLE, STABLE]
    with pytest.raises(ValueError, match="item indices"):
        unit_states(turns, rule, {"nugget": [0, 1]})
