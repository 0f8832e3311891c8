"""NLPCC aspect scores per system from a project's yes/no counts (imported or judged)."""

from __future__ import annotations

import numpy as np

from annotator.models import Project
from annotator.presets.of_project import project_scheme
from annotator.selectors.judgement_arrays import CriterionJudgements
from scoring.nlpcc import single_turn_scores


def system_of(meta: dict) -> str:
    """The system that produced a reply: the xlsx's 机器人 column, or ``meta.system`` of a JSONL import."""
    return str(meta.get("system") or (meta.get("meta") or {}).get("system") or "unknown")


def none_of_the_above(
    metas: dict[int, dict], judgements: dict[str, CriterionJudgements], questions: list[str]
) -> dict[int, tuple[int, int]]:
    """Per reply (dialogue id): how many of its annotators answered none of the nine questions with yes (the
    xlsx's 以上均不选 column: imported counts, plus each annotator here who said no to all nine), and of how many.

    >>> none_of_the_above({1: {"annotators": 3, "none_of_the_above": 2}}, {}, [])
    {1: (2, 3)}
    """
    out = {
        pk: (int(meta["none_of_the_above"]), int(meta.get("annotators") or 0))
        for pk, meta in metas.items()
        if isinstance(meta.get("none_of_the_above"), int)
    }
    given: dict[tuple[int, int], list[bool]] = {}  # (dialogue, annotator) -> a yes per question answered
    for key in questions:
        data = judgements.get(key)
        if data is None or not len(data.value):
            continue
        yes = data.values.index("yes")
        dialogues = data.unit_dialogue[data.unit]
        for dialogue, annotator, value in zip(dialogues, data.annotators[data.annotator], data.value):
            given.setdefault((int(dialogue), int(annotator)), []).append(int(value) == yes)
    for (dialogue, _annotator), answers in given.items():
        if len(answers) == len(questions):
            none, n = out.get(dialogue, (0, 0))
            out[dialogue] = (none + (not any(answers)), n + 1)
    return out


def nlpcc_summary(project: Project, judgements: dict[str, CriterionJudgements]) -> dict[str, dict[str, float]]:
    """``{SYSTEM: {"syntax", ..., "total", "none_of_the_above"}}`` over the replies every question was answered
    for; ``none_of_the_above`` is the share of the annotators' answers to a reply that said yes to none of the
    nine questions (where known)."""
    aspects = project_scheme(project).aspects
    metas = dict(project.dialogues.values_list("pk", "source_meta"))
    systems = {pk: system_of(meta) for pk, meta in metas.items()}
    nones = none_of_the_above(metas, judgements, list(aspects))
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
        none = sum(nones[r][0] for r in order if r in nones)
        n = sum(nones[r][1] for r in order if r in nones)
        if n:
            out[system]["none_of_the_above"] = float(none / n)
    return out
