"""The adaptive budget's part of the statistics payload: per item how many labels it has and why it stopped, and
the budget spent and left (``annotator.selectors.adaptive``). Absent on fixed-K projects."""

from __future__ import annotations

from typing import TypedDict

from annotator.models import Project
from annotator.selectors.adaptive import adaptive_on, adaptive_status, stop_reason


class AdaptiveItem(TypedDict):
    dialogue: str  # the item's external id
    labels: int  # submitted annotators
    held: int  # given annotators, unfinished ones included
    state: str  # open, stable, at_maximum
    stopped: str  # why it gets no more labels: stable, at_maximum, budget_spent; "" while open


class AdaptiveSummary(TypedDict):
    min_k: int
    max_k: int
    budget: int  # item-assignments in total; 0: no total cap
    stop_rule: str
    threshold: float
    spent: int
    left: int | None
    states: dict[str, int]  # items per state
    items: list[AdaptiveItem]


def adaptive_summary(project: Project) -> AdaptiveSummary | None:
    if not adaptive_on(project):
        return None
    status = adaptive_status(project)
    s = status.settings
    return {
        "min_k": s.min_k,
        "max_k": s.max_k,
        "budget": s.budget,
        "stop_rule": s.stop_rule,
        "threshold": s.threshold,
        "spent": status.spent,
        "left": status.left,
        "states": status.counts(),
        "items": [
            {
                "dialogue": i.external_id,
                "labels": i.labels,
                "held": i.held,
                "state": i.state,
                "stopped": stop_reason(i, status),
            }
            for i in status.items
        ],
    }
