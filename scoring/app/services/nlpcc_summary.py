"""NLPCC aspect scores per system from a project's yes/no counts (imported or judged)."""

from __future__ import annotations

import numpy as np

from annotator.models import Project
from annotator.presets import PRESETS
from annotator.selectors.judgement_arrays import CriterionJudgements
from scoring.nlpcc import single_turn_scores


def system_of(meta: dict) -> str:
    """The system that produced a reply: the xlsx's 机器人 column, or ``meta.system`` of a JSONL import."""
    return str(meta.get("system") or (meta.get("meta") or {}).get("system") or "unknown")


def nlpcc_summary(project: Project, judgements: dict[str, CriterionJudgements]) -> dict[str, dict[str, float]]:
    """``{SYSTEM: {"syntax", ..., "total"}}`` over the replies every question was answered for."""
    aspects = PRESETS[project.preset].aspects
    systems = {pk: system_of(meta) for pk, meta in project.dialogues.values_list("pk", "source_meta")}
    per_system: dict[str, dict[str, list]] = {}
    for key, data in judgements.items():
        counts = data.counts()
        yes = counts[:, data.values.index("yes")]
        n = counts.sum(axis=1)
        for u, dialogue in enumerate(data.unit_dialogue):
            if n[u]:
                entry = per_system.setdefault(systems[int(dialogue)], {}).setdefault(key, {})
                entry[int(dialogue)] = (yes[u], n[u])
    out = {}
    for system, questions in sorted(per_system.items()):
        replies = set.intersection(*(set(q) for q in questions.values()))
        if not replies or len(questions) < len(aspects) + 1:
            continue
        order = sorted(replies)
        yes_counts = {key: np.array([questions[key][r][0] for r in order]) for key in questions}
        annotators = np.array([questions["severe_error"][r][1] for r in order])
        out[system] = single_turn_scores(yes_counts, annotators, aspects)
    return out
