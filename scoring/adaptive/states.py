"""Stop rules and the state of each item: open, stable (its gold is settled) or at its maximum K.

Counts come per criterion, ``counts_by_criterion[name]`` of shape (units, categories). For item-level
criteria a unit is an item; for turn-level criteria (a label per turn) an item has several units, and
``items[name]`` gives for each unit (row) the item it belongs to. A unit is stable when it has at least
``min_k`` labels and its statistic is below the threshold; an item is stable when every unit of every
criterion is. An item's K (labels so far) is the largest number of labels on any of its units, as an
annotator labels every unit of the item they are given.

``rule`` is one rule for every criterion or a mapping criterion -> rule: a ``StopRule`` (distribution
gold) or a ``scoring.adaptive.label_gold.LabelStopRule`` (label gold), each ``bound`` to its criterion's
counts (a label rule fits its prior there). Items are capped at the smallest ``max_k`` of the rules and
need the largest ``min_k``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Union

import numpy as np

from scoring.adaptive.label_gold import LabelStopRule
from scoring.adaptive.stop_rules import expected_gold_change, interval_width

OPEN = "open"
STABLE = "stable"
AT_MAXIMUM = "at_maximum"
KINDS = ("expected_change", "interval_width")


@dataclass(frozen=True)
class StopRule:
    """When an item needs no more labels.

    kind: "expected_change" (the expected JSD from one more label, ``expected_gold_change``, is below
    ``threshold``) or "interval_width" (the widest credible interval, ``interval_width`` at ``level``, is
    narrower than ``threshold``). ``min_k`` labels at least before a unit can be stable; ``max_k`` (None: no
    cap) labels at most per item. ``prior`` is the symmetric Dirichlet prior of both statistics.
    """

    kind: str = "expected_change"
    threshold: float = 0.01
    min_k: int = 3
    max_k: int | None = None
    prior: float = 0.5
    level: float = 0.95

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown stop rule {self.kind!r}; one of {', '.join(KINDS)}")
        if not self.threshold >= 0:
            raise ValueError(f"the threshold must not be negative, got {self.threshold}")
        if self.min_k < 0 or (self.max_k is not None and self.max_k < max(self.min_k, 1)):
            raise ValueError(f"need 0 <= min_k <= max_k, got min_k={self.min_k}, max_k={self.max_k}")

    def statistic(self, counts) -> np.ndarray:
        """The rule's statistic per unit (smaller is more settled)."""
        if self.kind == "expected_change":
            return expected_gold_change(counts, self.prior)
        return interval_width(counts, self.level, self.prior)

    def units_stable(self, counts) -> np.ndarray:
        """Per unit: at least ``min_k`` labels and the statistic below the threshold."""
        counts = np.asarray(counts, dtype=float)
        if len(counts) == 0:
            return np.zeros(0, dtype=bool)
        return (counts.sum(axis=1) >= self.min_k) & (self.statistic(counts) < self.threshold)

    def bound(self, counts) -> StopRule:
        """The rule for a criterion's counts: itself (nothing is fitted)."""
        return self

    def priority(self, counts) -> np.ndarray:
        """The allocation's score per unit: the expected gold change from one more label."""
        return expected_gold_change(counts, self.prior)

    def decide(self, counts) -> tuple[np.ndarray, np.ndarray]:
        """(``units_stable``, ``priority``) at once, the expected change computed once when it is both."""
        counts = np.asarray(counts, dtype=float)
        change = expected_gold_change(counts, self.prior)
        statistic = change if self.kind == "expected_change" else self.statistic(counts)
        return (counts.sum(axis=1) >= self.min_k) & (statistic < self.threshold), change


Rule = Union[StopRule, LabelStopRule]  # noqa: UP007 (a runtime alias)


def rule_of(rule: Rule | Mapping[str, Rule], name: str) -> Rule:
    """The rule of criterion ``name``: ``rule`` itself, or its entry when ``rule`` maps criteria to rules."""
    if isinstance(rule, Mapping):
        if name not in rule:
            raise ValueError(f"no stop rule for criterion {name!r}")
        return rule[name]
    return rule


def limits(rule: Rule | Mapping[str, Rule]) -> tuple[int, int | None]:
    """(min_k, max_k) of the items: the largest minimum and the smallest maximum of the rules."""
    rules = list(rule.values()) if isinstance(rule, Mapping) else [rule]
    caps = [r.max_k for r in rules if r.max_k is not None]
    return max(r.min_k for r in rules), (min(caps) if caps else None)


def _layout(counts_by_criterion: Mapping, items: Mapping | None, n_items: int | None):
    """(criterion, counts, item index per unit) triples and the number of items."""
    if not counts_by_criterion:
        raise ValueError("no criterion to decide on")
    triples = []
    for name, counts in counts_by_criterion.items():
        counts = np.asarray(counts, dtype=float)
        index = np.arange(len(counts)) if items is None or name not in items else np.asarray(items[name], dtype=int)
        if len(index) != len(counts):
            raise ValueError(f"criterion {name!r}: {len(counts)} units but {len(index)} item indices")
        triples.append((name, counts, index))
    if n_items is None:
        n_items = max((int(index.max()) + 1 if len(index) else 0) for _, _, index in triples)
    return triples, n_items


def item_label_counts(counts_by_criterion: Mapping, items: Mapping | None = None, n_items: int | None = None):
    """Labels per item so far (K): the most labels on any of its units, shape (items,)."""
    triples, n_items = _layout(counts_by_criterion, items, n_items)
    k = np.zeros(n_items)
    for _, counts, index in triples:
        np.maximum.at(k, index, counts.sum(axis=1))
    return k.astype(int)


def items_stable(rule: Rule | Mapping[str, Rule], counts_by_criterion: Mapping, items=None, n_items=None) -> np.ndarray:
    """Per item: every unit of every criterion is stable (an item without units is)."""
    triples, n_items = _layout(counts_by_criterion, items, n_items)
    stable = np.ones(n_items, dtype=bool)
    for name, counts, index in triples:
        np.logical_and.at(stable, index, rule_of(rule, name).bound(counts).units_stable(counts))
    return stable


def unit_states(
    counts_by_criterion: Mapping,
    rule: Rule | Mapping[str, Rule],
    items: Mapping | None = None,
    n_items: int | None = None,
) -> np.ndarray:
    """Each item's state, "open", "stable" or "at_maximum" (an array of str, shape (items,)).

    Stable wins over at-maximum: an item that settled on its last allowed label says it settled.

    Examples
    --------
    >>> rule = StopRule("expected_change", threshold=0.003, min_k=3, max_k=10)
    >>> unit_states({"A": [[12, 0, 0], [1, 1, 1], [7, 3, 0]]}, rule).tolist()
    ['stable', 'open', 'at_maximum']
    """
    _, n_items = _layout(counts_by_criterion, items, n_items)
    stable = items_stable(rule, counts_by_criterion, items, n_items)
    states = np.full(n_items, OPEN, dtype=object)
    _, max_k = limits(rule)
    if max_k is not None:
        states[item_label_counts(counts_by_criterion, items, n_items) >= max_k] = AT_MAXIMUM
    states[stable] = STABLE
    return states.astype(str)
