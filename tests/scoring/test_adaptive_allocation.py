"""The allocation loop on generated items with known distributions: settled items stop early, split ones get more."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.adaptive import OPEN, STABLE, StopRule, allocation_priority, item_states_and_priority, unit_states

AGREED = np.array([1.0, 0.0, 0.0])
SPLIT = np.array([1 / 3, 1 / 3, 1 / 3])


def collect(rule, truths, budget, seed=0):
    """One label at a time to the open item of highest priority (ties at random), drawn from its distribution."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((len(truths), truths.shape[1]))
    for _ in range(budget):
        priority = allocation_priority({"label": counts}, rule)
        if not np.isfinite(priority).any():
            break
        best = np.flatnonzero(priority == priority.max())
        item = rng.choice(best)
        counts[item, rng.choice(truths.shape[1], p=truths[item])] += 1
    return counts


RULES = [
    StopRule("interval_width", threshold=0.35, min_k=3, max_k=30),
    # with Jeffreys' prior (0.5) a unanimous item fears a first dissenter about as much as a split item's next
    # label moves it; a small prior lets agreement settle first
    StopRule("expected_change", threshold=0.002, min_k=3, max_k=30, prior=0.1),
]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.kind)
def test_settled_items_stop_early_and_split_items_get_more(rule):
    truths = np.array([AGREED] * 15 + [SPLIT] * 15)
    counts = collect(rule, truths, budget=2000)
    labels = counts.sum(axis=1)
    states = unit_states({"label": counts}, rule)
    assert OPEN not in states.tolist()  # the loop ended because every item stopped
    assert (labels >= rule.min_k).all() and (labels <= rule.max_k).all()
    assert (states[:15] == STABLE).all()
    assert labels[:15].max() < labels[15:].min()
    assert labels[:15].mean() < 0.6 * labels[15:].mean()


def test_a_short_budget_goes_first_to_unlabelled_items_then_to_split_ones():
    rule = StopRule("expected_change", threshold=0.0, min_k=2, max_k=None, prior=0.1)
    truths = np.array([AGREED] * 10 + [SPLIT] * 10)
    counts = collect(rule, truths, budget=160, seed=1)
    labels = counts.sum(axis=1)
    assert labels.sum() == 160
    assert (labels >= 2).all()  # min_k first, before anything else
    assert labels[10:].mean() > 1.5 * labels[:10].mean()


def test_priority_orders_by_expected_change_and_never_picks_closed_items():
    rule = StopRule("expected_change", threshold=0.005, min_k=2, max_k=8)
    counts = {"label": [[0, 0, 0], [1, 0, 0], [2, 1, 1], [3, 2, 1], [4, 4, 0], [20, 0, 0]]}
    priority = allocation_priority(counts, rule)
    assert priority[0] > priority[1] > 1  # below min_k first, the fewest labels first
    assert priority[2] > priority[3] > 0  # then the larger expected change
    assert np.isneginf(priority[4]) and np.isneginf(priority[5])  # at the maximum; stable
    assert unit_states(counts, rule).tolist()[4:] == ["at_maximum", "stable"]


def test_priority_of_an_item_with_turns_is_its_least_settled_turn():
    rule = StopRule("expected_change", threshold=0.0, min_k=1, prior=0.1)
    counts = {"turn": [[5, 0], [5, 0], [3, 2], [5, 0]]}
    priority = allocation_priority(counts, rule, {"turn": [0, 0, 1, 1]})
    alone = allocation_priority({"turn": [[3, 2]]}, rule)
    assert priority[1] == pytest.approx(alone[0])
    assert priority[1] > priority[0]


@pytest.mark.parametrize("kind", ["expected_change", "interval_width"])
def test_states_and_priority_at_once_equal_the_two_apart_bit_for_bit(kind):
    """The hand-out's one pass (``item_states_and_priority``) gives exactly ``unit_states`` and
    ``allocation_priority``: random items of several turns over two criteria, with and without a cap."""
    rng = np.random.default_rng(11)
    for trial in range(60):
        n_items = int(rng.integers(1, 30))
        counts, items = {}, {}
        for name, width in (("turns", 3), ("whole", 5)):
            units = int(rng.integers(0, 3 * n_items))
            counts[name] = rng.integers(0, 5, size=(units, width)) * (rng.random((units, 1)) < 0.8)
            items[name] = rng.integers(0, n_items, size=units)
        if trial % 5 == 0:  # counts too large to number the distinct rows exactly: the other way
            counts["whole"][:1] *= 10**6
        threshold = float(rng.choice([0.0, 0.01, 0.05, 0.3, 0.6]))
        rule = StopRule(kind, threshold=threshold, min_k=int(rng.integers(0, 4)), max_k=[None, 6, 12][trial % 3])
        states, priority = item_states_and_priority(counts, rule, items, n_items)
        assert states.tolist() == unit_states(counts, rule, items, n_items).tolist()
        assert priority.tobytes() == allocation_priority(counts, rule, items, n_items).tobytes()
