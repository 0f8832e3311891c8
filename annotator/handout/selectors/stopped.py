"""Whether a project that hands items out one at a time needs no more answers, and why.

Projects with an adaptive budget stop handing items out once the budget is spent or every item has the labels it
needs (stable, or at its maximum); comparisons with active pairs stop once the vote budget is spent or the
ranking is separated. The queue page says so to an annotator who gets nothing more, instead of "Nothing is
assigned to you yet" (which reads as if work were still to come).
"""

from __future__ import annotations

from annotator.handout.selectors.adaptive import adaptive_settings, adaptive_status
from annotator.models import Project
from annotator.pairwise.selectors import collection_status, pairwise_settings
from scoring.adaptive import OPEN

BUDGET_SPENT = "budget_spent"
SEPARATED = "separated"
SETTLED = "settled"


def hand_out_stopped(project: Project) -> str | None:
    """``budget_spent``, ``separated`` (the ranking of the systems is settled), ``settled`` (every item has the
    labels it needs), or None while the project still hands items out (or does not hand them out one at a time).

    Reads the adaptive state (the live per-unit counts when exact) or the comparisons' votes: ask it only when an
    annotator got nothing."""
    if pairwise_settings(project).active_pairs:
        state = collection_status(project)["state"]
        return state if state in (BUDGET_SPENT, SEPARATED) else None
    settings = adaptive_settings(project)
    if not settings.adaptive:
        return None
    status = adaptive_status(project, settings)
    if status.budget_spent:
        return BUDGET_SPENT
    return SETTLED if status.items and all(item.state != OPEN for item in status.items) else None
