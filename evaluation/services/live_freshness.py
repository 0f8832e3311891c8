"""Whether a project's live figures are current: the ``live`` part of the statistics answer (the API's
``GET /api/projects/SLUG/stats/``, ``manage.py stats --json``), what the dashboard's notice says, for programs.

The answer's own figures come from the full recomputation, which counts every change; the dashboard's live
figures lag a structural change (an exclusion, an import) until their rebuild commits (``live_rebuild``). A
program that compares the two, or waits for the dashboard to show a change, reads it here.
"""

from __future__ import annotations

from annotator.models import Project
from evaluation.models import LiveState
from evaluation.services.freshness import live_freshness_of
from evaluation.services.incremental import live_state_peek, live_state_read
from evaluation.services.payloads import LiveFreshness


def live_freshness(project: Project, *, ask_for_rebuild: bool = True) -> LiveFreshness:
    """The live figures' freshness. ``ask_for_rebuild``: read the state as the dashboard does (a stale state no
    rebuild works on is asked for again, a project without one gets it); False for a process that would not
    live to see a rebuild through (a command), which reads without writing."""
    state = live_state_read(project) if ask_for_rebuild else live_state_peek(project)
    return freshness_of(state)


def freshness_of(state: LiveState) -> LiveFreshness:
    """The ``live`` part of the answer, as ``evaluation.services.freshness`` decides it for every page."""
    decided = live_freshness_of(state)
    stale = not decided.current
    return {
        "stale": stale,
        "stale_since": decided.stale_since_iso,
        "stale_because": (state.stale_because or "population") if stale else None,
        "stale_reason": decided.reason or None,
        "built_at": state.built_at.isoformat() if state.built_at else None,
        "rebuild_seconds": state.rebuild_seconds,
    }
