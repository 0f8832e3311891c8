"""Reads for the leaderboard: every run with the preset's metrics, and the stored comparisons."""

from __future__ import annotations

from annotator.models import Project
from annotator.presets import PRESETS
from scoring.app.models import Run, RunComparison, RunKind


def leaderboard(*, project: Project, metric: str | None) -> dict:
    """Runs with every metric the preset defines, and the stored comparison of one metric."""
    columns = PRESETS[project.preset].leaderboard
    runs = list(Run.objects.filter(project=project).defer("source", "per_dialogue").order_by("created_at", "pk"))
    for run in runs:
        run.cells = [_lookup(run.scores, c.key) for c in columns]
    comparisons = list(RunComparison.objects.filter(project=project).order_by("metric"))
    chosen = next((c for c in comparisons if c.metric == metric), comparisons[0] if comparisons else None)
    return {
        "runs": runs,
        "columns": columns,
        "run_scheme": PRESETS[project.preset].run_scheme,
        "comparisons": comparisons,
        "comparison": chosen,
        "scored": sum(r.status == "scored" and r.kind != RunKind.REORDERING for r in runs),
    }


def _lookup(scores: dict, dotted: str):
    node = scores
    for part in dotted.split(".", 1) if dotted.startswith("breakdown.") else dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node
