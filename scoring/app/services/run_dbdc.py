"""Scoring DBDC ``*.labels.json`` files against a breakdown project's gold distributions.

Every metric of Tsunomori et al. (2020), Table 1, with the precision and recall behind the
F-measures, pooled over the system turns as the DBDC3 evaluation script reports them, and per
dialogue.
"""

from __future__ import annotations

import numpy as np

from annotator.models import Post, Project, Unit
from scoring.app.selectors.project_gold import criteria_by_unit, external_ids
from scoring.breakdown import BREAKDOWN_METRICS, classification_metrics
from scoring.run_files import read_dbdc_run
from scoring.runs import breakdown_distribution_metrics, pool_breakdown


def dbdc_run_score(*, project: Project, files: list[tuple[str, bytes]], strict: bool, threshold: float):
    external = external_ids(project)
    data = criteria_by_unit(project)[Unit.SYSTEM_TURN][0]
    counts = data.counts()
    turn_index = {
        (external[d], p): (p if t is None else t)
        for d, p, t in Post.objects.filter(dialogue__project=project).values_list(
            "dialogue_id", "position", "source_turn_index"
        )
    }
    gold: dict[tuple[str, int], np.ndarray] = {}
    gold_turns: dict[str, list[int]] = {}
    for u, (d, position) in enumerate(zip(data.unit_dialogue, data.unit_index)):
        did = external[int(d)]
        index = turn_index[(did, int(position))]
        gold[(did, index)] = counts[u]
        gold_turns.setdefault(did, []).append(index)
    run = read_dbdc_run(files, gold_turns=gold_turns, strict=strict)
    gold_counts = np.array([gold[(d, t)] for d, t in zip(run.dialogue, run.turn.tolist())], dtype=float)
    per_turn = breakdown_distribution_metrics(run.p, gold_counts)

    def all_metrics(rows=None) -> dict[str, float]:
        merged = classification_metrics(run.label, gold_counts, threshold, rows) | pool_breakdown(per_turn, rows)
        return {name: merged[name] for name in BREAKDOWN_METRICS}

    scores = {
        "breakdown": all_metrics(),
        "n_dialogues": len(set(run.dialogue)),
        "n_turns": len(run.dialogue),
        "threshold": threshold,
    }
    rows_of: dict[str, list[int]] = {}
    for row, did in enumerate(run.dialogue):
        rows_of.setdefault(did, []).append(row)
    per_dialogue = {did: all_metrics(np.array(rows)) for did, rows in rows_of.items()}
    return scores, per_dialogue
