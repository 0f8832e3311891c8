"""A judge's report against the humans: agreement, the alternative annotator test, calibration, bias
probes and prediction-powered system scores (the ``scoring.judges`` library on the project's arrays).

The humans are read through ``project_judgements`` (the judgements that count for gold: no controls, no
excluded annotators) and the judge through ``judge_label_arrays``; the two are joined on the unit. The
report is computed on demand (11-31 s on STC-3 CN, 3,700 dialogues x 19 annotators, on a loaded two-core
machine; 3-4 s on DBDC3 EN: ``bench/judge_real_data.py``) and kept in the cache by
``evaluation.judges.services.cached`` until the judge's labels or the humans' judgements change.
"""

from __future__ import annotations

import numpy as np
from django.contrib.auth import get_user_model
from django.db.models.functions import Length

from annotator.importers.systems import dialogue_system
from annotator.judges.selectors import JudgeLabels, judge_label_arrays
from annotator.models import Dialogue, Judge, Post, Project
from annotator.selectors.judgement_arrays import CriterionJudgements, project_judgements
from evaluation.judges.services.margin import alt_test_margin
from evaluation.judges.services.pairwise import pairwise_parts
from evaluation.judges.services.ppi import system_estimate
from evaluation.judges.services.verdicts import criterion_tests, criterion_verdict, overall_verdict
from evaluation.services.statistics import numeric_values
from scoring.judges import calibration, combined_alt_test, judge_agreement, verbosity_bias
from scoring.judges.agreement import human_means

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
    """dialogue id -> the system it comes from (``annotator.importers.systems``), "all" where none is named."""
    rows = Dialogue.objects.filter(project=project).values_list("pk", "source_meta")
    return {pk: dialogue_system(meta) or "all" for pk, meta in rows.iterator()}


def _ppi_rated(data, judge, counts, x, systems, key, extra_f=None, extra_dialogue=None) -> list[dict]:
    """PPI system scores of a judge's labels (``judge``: value index per human unit, -1 where none;
    ``extra_f``/``extra_dialogue``: its labels on units no human judged)."""
    ordered = data.criterion.level != "nominal"
    humans = counts.sum(axis=1) > 0
    extra_f = np.zeros(0, dtype=np.int64) if extra_f is None else extra_f
    extra_dialogue = np.zeros(0, dtype=np.int64) if extra_dialogue is None else extra_dialogue
    extra_system = np.array([systems.get(int(d), "all") for d in extra_dialogue], dtype=object)
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


def _median_width_ratio(rows: list[dict]) -> float | None:
    ratios = sorted(r["width_ratio"] for r in rows if r["width_ratio"] is not None)
    return ratios[len(ratios) // 2] if ratios else None


def _human_agreement(agreement: dict, level: str) -> dict:
    """How far the humans agree on the items the judge labelled (Krippendorff's alpha at the criterion's level):
    the reason a verdict gives when the test cannot tell."""
    alpha = agreement.get("alpha_humans") or {}
    return {"alpha": alpha.get("value"), "level": level, "n_items": agreement.get("n_items", 0)}


def judge_report(project: Project, judge: Judge, epsilon: float | None = None, *, resamples: int = RESAMPLES) -> dict:
    """The JSON-ready report of ``judge`` against the humans of ``project``.

    ``{"judge", "agreement": {criterion: ...}, "alt_test": {"epsilon", "margin", "verdict", "winning_rate",
    "passed", "rho", "references", "per_annotator": [...], "criteria": {criterion: {..., "verdict", "scoring",
    "alignments", "best_trivial", "held_out", "human_agreement"}}}, "calibration": {criterion: ... | None},
    "bias": {...}, "ppi": {"systems": [...], "references": {...}}}``. ``epsilon`` None: from who annotated
    (``evaluation.judges.services.margin``).
    """
    humans = project_judgements(project)
    labels_of = judge_label_arrays(judge)
    users = {int(pk) for data in humans.values() for pk in data.annotators.tolist()}
    names = dict(get_user_model().objects.filter(pk__in=users).values_list("pk", "username"))
    margin = alt_test_margin(project=project, annotators=users, epsilon=epsilon)
    systems = _systems(project)
    agreement, calibrations, tests, verbosity, ppi, labelled = {}, {}, {}, {}, [], {}
    by_criterion, verdicts, scales, names_of, reference_ppi = {}, {}, {}, {}, {}
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
            name_of = lambda a, data=data: names.get(int(data.annotators[a]), "?")
            by_criterion[key] = criterion_tests(data, judge_values, x=x, epsilon=margin["epsilon"])
            tests[key] = by_criterion[key].test
            verdicts[key] = {
                **criterion_verdict(by_criterion[key], data.values, name_of),
                "human_agreement": _human_agreement(agreement[key], data.criterion.level),
            }
            scales[key], names_of[key] = data.values, name_of
            chosen = by_criterion[key].chosen
            reference_ppi[key] = {
                role: _ppi_rated(data, ref.labels, counts, x, systems, f"reference:{key}:{role}")
                for role, ref in (("best_trivial", chosen.best_trivial), ("held_out", chosen.held_out))
                if ref is not None
            }
        c = calibration(counts, probabilities, ordered=ordered) if probabilities is not None else None
        calibrations[key] = c.as_dict() if c is not None else None
        if ordered:
            judged = judge_values >= 0
            verbosity[key] = verbosity_bias(
                np.where(judged, x[np.maximum(judge_values, 0)], np.nan), human_means(counts, x),
                _unit_lengths(project, data), key=f"{tag}:verbosity", resamples=resamples,
            )  # fmt: skip
        extra = _extra_units(data, labels)
        ppi.extend(
            _ppi_rated(data, judge_values, counts, x, systems, tag, labels.value_index[extra], labels.dialogue[extra])
        )
    combined = combined_alt_test(tests)
    for row in combined["per_annotator"]:
        row["annotator"] = names.get(int(humans[row["criterion"]].annotators[row["annotator"]]), "?")
        row["t"] = row["t"] if row["t"] is None or np.isfinite(row["t"]) else None
    for key, v in verdicts.items():
        combined["criteria"][key].update(v)
    state, references = overall_verdict(by_criterion, combined, scales, names_of)
    combined.update({"epsilon": margin["epsilon"], "margin": margin, "verdict": state, "references": references})
    pairwise = pairwise_parts(project, judge, labels_of, key=judge.name)
    if pairwise is not None:
        ppi = pairwise["ppi"]
    kinds = {kind for rows in reference_ppi.values() for kind in rows}
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
        "ppi": {
            "systems": ppi,
            "median_width_ratio": _median_width_ratio(ppi),
            "references": {
                kind: _median_width_ratio([row for rows in reference_ppi.values() for row in rows.get(kind, [])])
                for kind in sorted(kinds)
            }
            if pairwise is None
            else {},
        },
    }
