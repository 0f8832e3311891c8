"""A judge's report against the humans: agreement, the alternative annotator test, calibration, bias
probes and prediction-powered system scores (the ``scoring.judges`` library on the project's arrays).

The humans are read through ``project_judgements`` (the judgements that count for gold: no controls, no
excluded annotators) and the judge through ``judge_label_arrays``; the two are joined on the unit. The
report is computed on demand (11-31 s on STC-3 CN, 3,700 dialogues x 19 annotators, on a loaded two-core
machine; 3-4 s on DBDC3 EN: ``bench/judge_real_data.py``) and kept in the cache by
``evaluation.services.judges.cached`` until the judge's labels or the humans' judgements change.
"""

from __future__ import annotations

import numpy as np
from django.contrib.auth import get_user_model
from django.db.models.functions import Length

from annotator.models import Dialogue, Judge, Post, Project
from annotator.selectors.judgement_arrays import CriterionJudgements, project_judgements
from annotator.selectors.judges import JudgeLabels, judge_label_arrays
from evaluation.services.judges.pairwise import pairwise_parts
from evaluation.services.judges.ppi import system_estimate
from evaluation.services.statistics import numeric_values
from scoring.judges import alt_test, calibration, combined_alt_test, judge_agreement, verbosity_bias
from scoring.judges.agreement import human_means
from scoring.judges.alt_test import ACCURACY, EPSILON, NEG_RMSE

RESAMPLES = 1000


def _judge_per_unit(data: CriterionJudgements, labels: JudgeLabels) -> tuple[np.ndarray, np.ndarray | None]:
    """The judge's value index per human unit (-1 where none) and its distribution rows (NaN where none)."""
    judge = np.full(data.n_units, -1, dtype=np.int64)
    rows, units = labels.align(data.unit_dialogue, data.unit_index)
    judge[units] = labels.value_index[rows]
    probabilities = None
    if labels.distribution is not None:
        probabilities = np.full((data.n_units, len(data.values)), np.nan)
        probabilities[units] = labels.distribution[rows]
    return judge, probabilities


def _extra_units(data: CriterionJudgements, labels: JudgeLabels) -> np.ndarray:
    """Rows of the judge's labels on units no human judged (the unlabelled items of PPI)."""
    rows, _units = labels.align(data.unit_dialogue, data.unit_index)
    extra = np.ones(len(labels), dtype=bool)
    extra[rows] = False
    return np.flatnonzero(extra)


def _unit_lengths(project: Project, data: CriterionJudgements) -> np.ndarray:
    """Characters of what each unit shows: the post, the utterance block, or the whole dialogue."""
    kind = data.criterion.unit
    posts = Post.objects.filter(dialogue__project=project).annotate(n=Length("text"))
    by_key: dict[tuple[int, int], int] = {}
    for dialogue_id, position, block, n in posts.values_list("dialogue_id", "position", "utterance_block", "n"):
        key = (dialogue_id, 0 if kind == "dialogue" else block if kind == "turn" else position)
        by_key[key] = by_key.get(key, 0) + n
    return np.array(
        [by_key.get((int(d), int(u)), np.nan) for d, u in zip(data.unit_dialogue, data.unit_index)], dtype=float
    )


def _systems(project: Project) -> dict[int, str]:
    return {
        pk: s or "all" for pk, s in Dialogue.objects.filter(project=project).values_list("pk", "source_meta__system")
    }


def _ppi_rated(data, labels, judge, counts, x, systems, key) -> list[dict]:
    ordered = data.criterion.level != "nominal"
    humans = counts.sum(axis=1) > 0
    extra = _extra_units(data, labels)
    extra_f = labels.value_index[extra]
    extra_system = np.array([systems.get(int(d), "all") for d in labels.dialogue[extra]], dtype=object)
    unit_system = np.array([systems.get(int(d), "all") for d in data.unit_dialogue], dtype=object)
    judged = humans & (judge >= 0)
    targets = (
        [("mean", human_means(counts, x), x[np.maximum(judge, 0)], x[extra_f] if len(extra_f) else extra_f)]
        if ordered
        else [
            (
                value,
                counts[:, v] / np.maximum(counts.sum(axis=1), 1),
                (judge == v).astype(float),
                (extra_f == v).astype(float),
            )
            for v, value in enumerate(data.values)
        ]
    )
    out = []
    for system in sorted(set(unit_system[judged]) | set(extra_system)):
        mine, mine_extra = judged & (unit_system == system), extra_system == system
        for target, y, f, f_extra in targets:
            estimate = system_estimate(
                y[mine], f[mine], np.asarray(f_extra)[mine_extra], key=f"{key}:{system}:{target}"
            )
            if estimate:
                out.append({"system": system, "criterion": data.criterion.key, "target": target, **estimate})
    return out


def judge_report(project: Project, judge: Judge, epsilon: float = EPSILON, *, resamples: int = RESAMPLES) -> dict:
    """The JSON-ready report of ``judge`` against the humans of ``project``.

    ``{"judge", "agreement": {criterion: ...}, "alt_test": {"epsilon", "winning_rate", "passed", "rho",
    "per_annotator": [...], "criteria": {...}}, "calibration": {criterion: ... | None}, "bias": {...},
    "ppi": {"systems": [...]}}``
    """
    humans = project_judgements(project)
    labels_of = judge_label_arrays(judge)
    users = {int(pk) for data in humans.values() for pk in data.annotators.tolist()}
    names = dict(get_user_model().objects.filter(pk__in=users).values_list("pk", "username"))
    systems = _systems(project)
    agreement, calibrations, tests, verbosity, ppi, labelled = {}, {}, {}, {}, [], {}
    for key, data in humans.items():
        labels = labels_of.get(key)
        if labels is None or len(labels) == 0:
            continue
        judge_values, probabilities = _judge_per_unit(data, labels)
        counts = data.counts()
        x = numeric_values(data.values)
        ordered = data.criterion.level != "nominal"
        tag = f"{judge.name}:{key}"
        labelled[key] = {
            "labels": len(labels),
            "missing": labels.missing,
            "with_humans": int((judge_values >= 0).sum()),
        }
        agreement[key] = judge_agreement(
            counts, judge_values, ordered=ordered, level=data.criterion.level, values=x, key=tag, resamples=resamples
        ).as_dict()
        if len(data.value):
            tests[key] = alt_test(
                data.unit, data.annotator, data.value, judge_values, n_values=len(data.values),
                scoring=NEG_RMSE if ordered else ACCURACY, values=x, epsilon=epsilon,
            )  # fmt: skip
        c = calibration(counts, probabilities, ordered=ordered) if probabilities is not None else None
        calibrations[key] = c.as_dict() if c is not None else None
        if ordered:
            judged = judge_values >= 0
            verbosity[key] = verbosity_bias(
                np.where(judged, x[np.maximum(judge_values, 0)], np.nan), human_means(counts, x),
                _unit_lengths(project, data), key=f"{tag}:verbosity", resamples=resamples,
            )  # fmt: skip
        ppi.extend(_ppi_rated(data, labels, judge_values, counts, x, systems, tag))
    combined = combined_alt_test(tests)
    for row in combined["per_annotator"]:
        row["annotator"] = names.get(int(humans[row["criterion"]].annotators[row["annotator"]]), "?")
        row["t"] = row["t"] if row["t"] is None or np.isfinite(row["t"]) else None
    pairwise = pairwise_parts(project, judge, labels_of, key=judge.name)
    if pairwise is not None:
        ppi = pairwise["ppi"]
    return {
        "judge": {"name": judge.name, "kind": judge.kind, "labelled": labelled},
        "agreement": agreement,
        "alt_test": combined,
        "calibration": calibrations,
        "bias": {
            "verbosity": verbosity,
            "position": pairwise["position"] if pairwise else None,
            "self_preference": pairwise["self_preference"] if pairwise else None,
        },
        "ppi": {"systems": ppi},
    }
