"""Scoring the annotators' reorderings of a coherence project as a run (Gandhe & Traum 2008).

Kendall's tau against the original order, n-gram preservation b2 and b3, and (b2 + b3)/2.
"""

from __future__ import annotations

import numpy as np

from annotator.models import AssignmentStatus, Project, Reordering
from scoring.errors import N_, InputError
from scoring.ordering import coherence_b23, kendall_tau, ngram_preservation


def reorderings_score(*, project: Project) -> tuple[dict, dict]:
    """tau, b2, b3 and (b2 + b3)/2 of every submitted reordering, per assignment and per dialogue."""
    rows = list(
        Reordering.objects.filter(
            assignment__dialogue__project=project, assignment__status=AssignmentStatus.SUBMITTED
        ).values_list(
            "assignment_id", "assignment__dialogue__external_id", "assignment__annotator__username", "submitted_order"
        )
    )
    if not rows:
        raise InputError(project.slug, N_("has no submitted reorderings to score"))
    per_assignment, per_dialogue_lists = {}, {}
    for assignment_id, dialogue, annotator, order in rows:
        order = np.asarray(order, dtype=np.int64)
        values = {
            "tau": kendall_tau(order),
            "b2": ngram_preservation(order, 2),
            "b3": ngram_preservation(order, 3) if len(order) >= 3 else float("nan"),
            "b23": coherence_b23(order),
        }
        per_assignment[str(assignment_id)] = {"dialogue": dialogue, "annotator": annotator, **values}
        per_dialogue_lists.setdefault(dialogue, []).append(values)
    per_dialogue = {
        d: {k: float(np.mean([v[k] for v in vs])) for k in ("tau", "b2", "b3", "b23")}
        for d, vs in per_dialogue_lists.items()
    }
    scores = {
        "reordering": {k: float(np.mean([v[k] for v in per_assignment.values()])) for k in ("tau", "b2", "b3", "b23")},
        "n_dialogues": len(per_dialogue),
        "n_reorderings": len(per_assignment),
        "per_assignment": per_assignment,
    }
    return scores, per_dialogue
