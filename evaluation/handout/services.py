"""The adaptive budget's part of the statistics payload: per item how many labels it has and why it stopped, and
the budget spent and left (``annotator.handout.selectors.adaptive``); on label gold, per criterion the rule (delta, the
majority's threshold, the fitted prior), its units settled and the rule's expected error rate among them, and per
item how many of its label units are settled. Absent on fixed-K projects."""

from __future__ import annotations

from typing import TypedDict

import numpy as np

from annotator.handout.selectors.adaptive import adaptive_on, adaptive_status, label_settlement, stop_reason
from annotator.models import Project


class AdaptiveItem(TypedDict):
    dialogue: str  # the item's external id
    labels: int  # submitted annotators
    held: int  # given annotators, unfinished ones included
    state: str  # open, stable, at_maximum
    stopped: str  # why it gets no more labels: stable, at_maximum, budget_spent; "" while open
    label_units: int  # its units of label-gold criteria
    settled_units: int  # how many of them are settled


class LabelGold(TypedDict):
    delta: float  # a settled unit's label differs from its label at max_k with probability at most delta
    threshold: float  # the share the majority label needs (else the scale's first value)
    prior: list[float]  # the Dirichlet prior over label shares fitted to the counts, in scale order
    units: int
    settled: int
    expected_error: float | None  # the mean change probability of the settled units


class AdaptiveSummary(TypedDict):
    min_k: int
    max_k: int
    budget: int  # item-assignments in total; 0: no total cap
    stop_rule: str
    threshold: float
    spent: int
    left: int | None
    states: dict[str, int]  # items per state
    delta: float
    label_gold: dict[str, LabelGold]  # per label-gold criterion
    items: list[AdaptiveItem]


def adaptive_summary(project: Project) -> AdaptiveSummary | None:
    if not adaptive_on(project):
        return None
    status = adaptive_status(project)
    s = status.settings
    labels = label_settlement(status)
    n_items = len(status.items)
    units = sum((found.item_units for found in labels.values()), start=np.zeros(n_items, dtype=int))
    settled = sum((found.item_settled for found in labels.values()), start=np.zeros(n_items, dtype=int))
    return {
        "min_k": s.min_k,
        "max_k": s.max_k,
        "budget": s.budget,
        "stop_rule": s.stop_rule,
        "threshold": s.threshold,
        "spent": status.spent,
        "left": status.left,
        "states": status.state_counts(),
        "delta": s.delta,
        "label_gold": {
            key: {
                "delta": found.delta,
                "threshold": found.threshold,
                "prior": list(found.alpha),
                "units": found.units,
                "settled": found.settled,
                "expected_error": found.expected_error,
            }
            for key, found in labels.items()
        },
        "items": [
            {
                "dialogue": item.external_id,
                "labels": item.labels,
                "held": item.held,
                "state": item.state,
                "stopped": stop_reason(item, status),
                "label_units": int(units[i]),
                "settled_units": int(settled[i]),
            }
            for i, item in enumerate(status.items)
        ],
    }
