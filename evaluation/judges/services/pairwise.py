"""The pairwise parts of a judge's report: each system's win rate by prediction-powered inference, the
judge's preference for itself when it is one of the systems, and its position consistency.

A comparison's human target for system ``s`` is the share of the humans' votes for ``s`` (a tie or "both
bad" counts half); the judge's prediction is 1, 0 or 0.5 as its verdict names ``s``, the other system or
neither. The judge's labels do not record the order the responses were shown in, so position consistency
(``scoring.judges.bias.swap_consistency``) is reported as not measured.
"""

from __future__ import annotations

import numpy as np

from annotator.judges.selectors import JudgeLabels
from annotator.models import Judge, Project
from annotator.pairwise.selectors import comparison_vote_records, item_candidates
from evaluation.judges.services.ppi import system_estimate
from scoring.judges import self_preference

_VERDICT_FOR_A = {"a": 1.0, "b": 0.0}


def _human_share_a(records: list[dict]) -> dict[int, float]:
    """item -> the humans' share of votes for candidate A (ties and both-bad half)."""
    votes: dict[int, list[float]] = {}
    for r in records:
        share = 1.0 if r["winner"] == r["a"] else 0.0 if r["winner"] == r["b"] else 0.5
        votes.setdefault(r["item"], []).append(share)
    return {item: float(np.mean(v)) for item, v in votes.items()}


def pairwise_parts(project: Project, judge: Judge, labels_of: dict[str, JudgeLabels], *, key: str) -> dict | None:
    """PPI win rates, self-preference and position for a pairwise project; None for a rated one."""
    items = item_candidates(project)
    if not items:
        return None
    records = comparison_vote_records(project, items)
    systems_ppi, preference = [], None
    for criterion, labels in labels_of.items():
        if len(labels) == 0:
            continue
        human = _human_share_a(records.get(criterion, []))
        verdict = {int(d): _VERDICT_FOR_A.get(v, 0.5) for d, v in zip(labels.dialogue, labels.value) if int(d) in items}
        a = np.array([items[d][0] for d in verdict], dtype=object)
        b = np.array([items[d][1] for d in verdict], dtype=object)
        f_a = np.array(list(verdict.values()), dtype=float)
        y_a = np.array([human.get(d, np.nan) for d in verdict], dtype=float)
        labelled = np.isfinite(y_a)
        for system in sorted(set(a) | set(b)):
            is_a, involved = a == system, (a == system) | (b == system)
            f = np.where(is_a, f_a, 1 - f_a)
            y = np.where(is_a, y_a, 1 - y_a)
            estimate = system_estimate(
                y[involved & labelled],
                f[involved & labelled],
                f[involved & ~labelled],
                key=f"{key}:{criterion}:{system}",
            )
            if estimate:
                systems_ppi.append({"system": system, "criterion": criterion, "target": "win_rate", **estimate})
        if preference is None and judge.name in set(a) | set(b):
            preference = self_preference(judge.name, a[labelled], b[labelled], f_a[labelled], y_a[labelled])
    position = {"consistency": None, "n": 0, "measured": False}
    return {"ppi": systems_ppi, "self_preference": preference, "position": position}
