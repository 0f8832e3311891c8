"""Reads for the dashboard: how fresh the statistics are, one dialogue's judgements side by side."""

from __future__ import annotations

from annotator.models import AssignmentStatus, Dialogue, Judgement, Project
from scoring.app.models import ProjectStatistics, StatisticsJob
from scoring.app.services.statistics import judgements_fingerprint


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


def dialogue_judgements_side_by_side(*, dialogue: Dialogue) -> dict:
    """Every submitted judgement of one dialogue: rows are units, columns annotators (lead-only view)."""
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
