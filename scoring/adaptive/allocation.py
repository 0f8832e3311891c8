"""Where the next label goes: the open item whose gold one more label is expected to change most."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from scoring.adaptive.states import AT_MAXIMUM, OPEN, STABLE, StopRule, _layout, item_label_counts, unit_states
from scoring.adaptive.stop_rules import expected_gold_change


def allocation_priority(
    counts_by_criterion: Mapping, rule: StopRule, items: Mapping | None = None, n_items: int | None = None
) -> np.ndarray:
    """The score to order items by for the next label, highest first, shape (items,).

    For an open item it is the largest expected gold change (``expected_gold_change``, in [0, 1]) over its
    units and criteria: the unit furthest from settled decides, as one annotator labels them all. Open
    items below ``min_k`` labels come before every other (score 1 + the labels they lack, so the fewest
    labelled first); items that are stable or at their maximum score -inf (never chosen). Ties are the
    caller's to break (at random, or by item order).

    Examples
    --------
    >>> rule = StopRule(threshold=0.005, min_k=3, max_k=10)
    >>> allocation_priority({"A": [[0, 0, 0], [3, 2, 2], [12, 0, 0], [2, 1, 0]]}, rule).round(3).tolist()
    [4.0, 0.005, -inf, 0.026]
    """
    triples, n_items = _layout(counts_by_criterion, items, n_items)
    priority = np.zeros(n_items)
    for _, counts, index in triples:
        if len(counts):
            np.maximum.at(priority, index, expected_gold_change(counts, rule.prior))
    k = item_label_counts(counts_by_criterion, items, n_items)
    lacking = np.maximum(rule.min_k - k, 0)
    priority = np.where(lacking > 0, 1.0 + lacking, priority)
    return np.where(unit_states(counts_by_criterion, rule, items, n_items) == OPEN, priority, -np.inf)


def _distinct_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``counts`` (non-negative integers as floats) and each row's index among them: one
    number per row when they fit exactly in a float (a sort of numbers, not of rows), else numpy's row unique."""
    base = float(counts.max()) + 1 if counts.size else 1.0
    if base ** counts.shape[1] < 2**53:
        key = counts @ (base ** np.arange(counts.shape[1]))
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        return counts[first], inverse.reshape(-1)
    distinct, inverse = np.unique(counts, axis=0, return_inverse=True)
    return distinct, inverse.reshape(-1)


def item_states_and_priority(
    counts_by_criterion: Mapping, rule: StopRule, items: Mapping | None = None, n_items: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``unit_states`` and ``allocation_priority`` at once, equal to them bit for bit, the expected gold change
    computed once per distinct count vector (the two apart compute it three times per unit; a hand-out asks for
    both, under a lock).

    Examples
    --------
    >>> rule = StopRule(threshold=0.005, min_k=3, max_k=10)
    >>> states, priority = item_states_and_priority({"A": [[0, 0, 0], [3, 2, 2], [12, 0, 0], [2, 1, 0]]}, rule)
    >>> states.tolist(), priority.round(3).tolist()
    (['open', 'open', 'stable', 'open'], [4.0, 0.005, -inf, 0.026])
    """
    triples, n_items = _layout(counts_by_criterion, items, n_items)
    stable = np.ones(n_items, dtype=bool)
    change = np.zeros(n_items)
    labels = np.zeros(n_items)
    for _, counts, index in triples:
        if not len(counts):
            continue
        # units share few distinct count vectors (small integers): each statistic once per distinct vector
        distinct, inverse = _distinct_rows(counts)
        expected = expected_gold_change(distinct, rule.prior)
        statistic = (expected if rule.kind == "expected_change" else rule.statistic(distinct))[inverse]
        expected = expected[inverse]
        per_unit = counts.sum(axis=1)
        np.logical_and.at(stable, index, (per_unit >= rule.min_k) & (statistic < rule.threshold))
        np.maximum.at(change, index, expected)
        np.maximum.at(labels, index, per_unit)
    k = labels.astype(int)
    states = np.full(n_items, OPEN, dtype=object)
    if rule.max_k is not None:
        states[k >= rule.max_k] = AT_MAXIMUM
    states[stable] = STABLE
    states = states.astype(str)
    lacking = np.maximum(rule.min_k - k, 0)
    priority = np.where(lacking > 0, 1.0 + lacking, change)
    return states, np.where(states == OPEN, priority, -np.inf)
