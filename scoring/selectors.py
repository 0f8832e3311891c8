"""Reads for the dashboard and the leaderboard (Django side of the scoring app)."""

from __future__ import annotations

from annotator.models import AssignmentStatus, Judgement, Project
from annotator.presets import PRESETS
from scoring.breakdown import TABLE1
from scoring.models import ProjectStatistics, Run, RunComparison, RunKind, StatisticsJob
from scoring.services.statistics import judgements_fingerprint

STC3_COLUMNS = [f"quality.{k}.{m}" for k in "ASE" for m in ("rsnod", "nmd", "rsnod_neglog2", "nmd_neglog2")] + [
    f"nugget.{m}" for m in ("rnss", "jsd", "rnss_neglog2", "jsd_neglog2")
]
DBDC_COLUMNS = [f"breakdown.{m}" for m in TABLE1 + ["Precision(B)", "Recall(B)", "Precision(PB+B)", "Recall(PB+B)"]]
REORDERING_COLUMNS = [f"reordering.{m}" for m in ("tau", "b2", "b3", "b23")]


def freshness(*, project: Project) -> dict:
    """How current the stored statistics are: when computed, what they cover, what changed since."""
    stored = ProjectStatistics.objects.filter(project=project).first()
    n_now, fingerprint = judgements_fingerprint(project)
    job = StatisticsJob.objects.filter(project=project).first()
    return {
        "stored": stored,
        "judgements_now": n_now,
        "up_to_date": bool(stored and stored.fingerprint == fingerprint),
        "new_judgements": n_now - (stored.n_judgements if stored else 0),
        "pending": bool(job and job.pending),
        "last_error": job.last_error if job else "",
    }


def leaderboard(*, project: Project, metric: str | None) -> dict:
    """Runs with every metric the preset defines, and the stored comparison of one metric."""
    if PRESETS[project.preset].key == "dbdc":
        columns = DBDC_COLUMNS
    elif PRESETS[project.preset].reordering:
        columns = REORDERING_COLUMNS
    else:
        columns = STC3_COLUMNS
    runs = list(Run.objects.filter(project=project).defer("source", "per_dialogue").order_by("created_at", "pk"))
    for run in runs:
        run.cells = [_lookup(run.scores, c) for c in columns]
    comparisons = list(RunComparison.objects.filter(project=project).order_by("metric"))
    chosen = next((c for c in comparisons if c.metric == metric), comparisons[0] if comparisons else None)
    return {
        "runs": runs,
        "columns": [c.split(".", 1)[1] for c in columns],
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


def dialogue_judgements_side_by_side(*, project: Project, dialogue_id: int) -> dict:
    """Every submitted judgement of one dialogue: rows are units, columns annotators (lead-only view)."""
    dialogue = project.dialogues.get(pk=dialogue_id)
    rows = Judgement.objects.filter(
        assignment__dialogue=dialogue, assignment__status=AssignmentStatus.SUBMITTED
    ).values_list("criterion__key", "criterion__position", "unit", "assignment__annotator__username", "value")
    annotators = sorted({r[3] for r in rows})
    table: dict[tuple[int, str, int], dict[str, str]] = {}
    for key, position, unit, annotator, value in rows:
        table.setdefault((position, key, unit), {})[annotator] = value
    posts = list(dialogue.posts.order_by("position").values("position", "speaker", "text", "utterance_block"))
    return {
        "dialogue": dialogue,
        "annotators": annotators,
        "posts": posts,
        "rows": [
            {"criterion": key, "unit": unit, "values": [cells.get(a, "") for a in annotators]}
            for (_p, key, unit), cells in sorted(table.items())
        ],
    }
