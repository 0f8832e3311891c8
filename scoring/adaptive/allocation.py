"""Where the next label goes: the open item whose gold is least settled.

Per unit the rule's ``priority``: for distribution gold the expected change of the gold from one more
label (``expected_gold_change``), for label gold the probability that its label at K_max differs from its
label now (``label_change_probability``); both lie in [0, 1]. An item's score is its least settled unit's.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from scoring.adaptive.states import (
    AT_MAXIMUM,
    OPEN,
    STABLE,
    Rule,
    _layout,
    item_label_counts,
    limits,
    rule_of,
    unit_states,
)


def allocation_priority(
    counts_by_criterion: Mapping,
    rule: Rule | Mapping[str, Rule],
    items: Mapping | None = None,
    n_items: int | None = None,
) -> np.ndarray:
    """The score to order items by for the next label, highest first, shape (items,).

    For an open item it is the largest ``priority`` (in [0, 1]: see the module docstring) over its units and
    criteria: the unit furthest from settled decides, as one annotator labels them all. Open
    items below ``min_k`` labels come before every other (score 1 + the labels they lack, so the fewest
    labelled first); items that are stable or at their maximum score -inf (never chosen). Ties are the
    caller's to break (at random, or by item order).

    Examples
    --------
    >>> from scoring.adaptive import StopRule
    >>> rule = StopRule(threshold=0.005, min_k=3, max_k=10)
    >>> allocation_priority({"A": [[0, 0, 0], [3, 2, 2], [12, 0, 0], [2, 1, 0]]}, rule).round(3).tolist()
    [4.0, 0.005, -inf, 0.026]
    """
    triples, n_items = _layout(counts_by_criterion, items, n_items)
    priority = np.zeros(n_items)
    for name, counts, index in triples:
        if len(counts):
            np.maximum.at(priority, index, rule_of(rule, name).bound(counts).priority(counts))
    k = item_label_counts(counts_by_criterion, items, n_items)
    lacking = np.maximum(limits(rule)[0] - k, 0)
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
    counts_by_criterion: Mapping,
    rule: Rule | Mapping[str, Rule],
    items: Mapping | None = None,
    n_items: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``unit_states`` and ``allocation_priority`` at once, equal to them bit for bit, each statistic computed
    once per distinct count vector (the two apart compute it three times per unit; a hand-out asks for both,
    under a lock).

    Examples
    --------
    >>> from scoring.adaptive import StopRule
    >>> rule = StopRule(threshold=0.005, min_k=3, max_k=10)
    >>> states, priority = item_states_and_priority({"A": [[0, 0, 0], [3, 2, 2], [12, 0, 0], [2, 1, 0]]}, rule)
    >>> states.tolist(), priority.round(3).tolist()
    (['open', 'open', 'stable', 'open'], [4.0, 0.005, -inf, 0.026])
    """
    triples, n_items = _layout(counts_by_criterion, items, n_items)
    stable = np.ones(n_items, dtype=bool)
    change = np.zeros(n_items)
    labels = np.zeros(n_items)
    for name, counts, index in triples:
        if not len(counts):
            continue
        # units share few distinct count vectors (small integers): each statistic once per distinct vector
        distinct, inverse = _distinct_rows(counts)
        unit_stable, unit_priority = rule_of(rule, name).bound(counts).decide(distinct)
        np.logical_and.at(stable, index, unit_stable[inverse])
        np.maximum.at(change, index, unit_priority[inverse])
        np.maximum.at(labels, index, counts.sum(axis=1))
    k = labels.astype(int)
    min_k, max_k = limits(rule)
    states = np.full(n_items, OPEN, dtype=object)
    if max_k is not None:
        states[k >= max_k] = AT_MAXIMUM
    states[stable] = STABLE
    states = states.astype(str)
    lacking = np.maximum(min_k - k, 0)
    priority = np.where(lacking > 0, 1.0 + lacking, change)
    return states, np.where(states == OPEN, priority, -np.inf)
