"""The dashboard's adaptive-budget section: the budget spent and left, items per state, and a page of items with
their labels and state (``annotator.handout.selectors.adaptive``; paged, so a project of thousands of items stays
light);
on label gold, per criterion the units settled and per item how many of its label units are."""

from __future__ import annotations

from django.core.paginator import Paginator

from annotator.handout.selectors.adaptive import (
    AT_MAXIMUM,
    OPEN,
    STABLE,
    adaptive_on,
    adaptive_status,
    label_settlement,
    stop_reason,
)
from annotator.models import Project

ITEMS_PER_PAGE = 50
STATES = (OPEN, STABLE, AT_MAXIMUM)


def adaptive_section(*, project: Project, page: str | None, state: str = "") -> dict | None:
    """None on fixed-K projects; else the settings, counts, spent/left and one page of items (``state``: only those)."""
    if not adaptive_on(project):
        return None
    status = adaptive_status(project)
    labels = label_settlement(status)
    units = sum(found.item_units for found in labels.values()) if labels else None
    settled = sum(found.item_settled for found in labels.values()) if labels else None
    rows = [
        {
            "item": item,
            "stopped": stop_reason(item, status),
            "label_units": int(units[i]) if units is not None else None,
            "settled_units": int(settled[i]) if settled is not None else None,
        }
        for i, item in enumerate(status.items)
        if not state or item.state == state
    ]
    settings = status.settings
    total = settings.budget or None
    return {
        "settings": settings,
        "counts": status.state_counts(),
        "spent": status.spent,
        "left": status.left,
        "spent_share": (status.spent / total) if total else None,
        "labels": sum(i.labels for i in status.items),
        "label_gold": list(labels.values()),
        "state": state if state in STATES else "",
        "page": Paginator(rows, ITEMS_PER_PAGE).get_page(page),
    }
