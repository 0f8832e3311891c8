"""The statistics payload's reliability part: how careful each annotator is, and why one is flagged.

Per annotator (by username): leave-one-out Krippendorff's alpha per criterion, pairwise Cohen's kappa
(a matrix per criterion, drawn as a heat map, each kappa with its interval over the pair's shared units),
control accuracy over time, median seconds per item,
straight-lining, too-fast items, agreement with adjudicated labels, and the reliability the latent-truth
models (Dawid-Skene, GLAD, MACE via crowd-kit) estimate. Flags name the figure that raised them.
Everything but control accuracy reads the judgements that count (``annotator.selectors.population``).
"""

from __future__ import annotations

import numpy as np
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_noop

from annotator.models import Assignment, AssignmentStatus, Project, QualityItemKind, QualitySettings
from annotator.selectors.adjudication import adjudicated_labels
from annotator.selectors.judgement_arrays import CriterionJudgements
from annotator.selectors.population import population_of
from annotator.selectors.quality import checked_answers
from evaluation.services.agreement_evidence import kappa_matrix_evidence
from evaluation.services.model_reliability import MIN_MODEL_JUDGEMENTS, MODEL_LIMITS
from scoring.aggregation import RELIABILITY
from scoring.agreement import krippendorff_alpha_leave_one_out
from scoring.reliability import straight_lining

PENDING = "being estimated on the workers"

KAPPA_MATRIX_MAX = 30  # annotators in a kappa matrix: those with the most judgements
THRESHOLDS = {
    "alpha_effect": -0.02,  # leaving them out raises alpha by more than this
    "control_accuracy": 0.7,
    "straight_lining": 0.5,
    "too_fast": 0.2,
    "dawid_skene_spammer": 0.1,
    "adjudicated_agreement": 0.5,
    "min_answers": 3,
}


def _numeric(data: CriterionJudgements) -> np.ndarray:
    try:
        return np.array([float(v) for v in data.values])
    except ValueError:
        return np.arange(len(data.values), dtype=float)


def _kappa(data: CriterionJudgements, names: dict[int, str]) -> dict | None:
    n_annotators = len(data.annotators)
    if n_annotators < 2:
        return None
    per = np.bincount(data.annotator, minlength=n_annotators)
    keep = np.sort(np.argsort(-per, kind="stable")[:KAPPA_MATRIX_MAX])
    remap = np.full(n_annotators, -1)
    remap[keep] = np.arange(len(keep))
    use = remap[data.annotator] >= 0
    weights = None if data.criterion.level == "nominal" else "linear"
    figures = kappa_matrix_evidence(
        data.unit[use], remap[data.annotator[use]], data.value[use], key=data.criterion.key,
        n_annotators=len(keep), n_values=len(data.values), weights=weights,
    )  # fmt: skip
    return {
        "annotators": [names.get(int(data.annotators[a]), str(data.annotators[a])) for a in keep],
        "weights": weights or "none",
        "of": n_annotators,
        "categories": list(data.values),
        **figures,
    }


def _seconds(project: Project, too_fast: int) -> dict[int, dict]:
    rows = (
        Assignment.objects.filter(dialogue__project=project, status=AssignmentStatus.SUBMITTED, imported=False)
        .exclude(dialogue__quality_item__kind=QualityItemKind.TRAINING)
        .values_list("annotator_id", "seconds_spent")
    )
    spent: dict[int, list[int]] = {}
    for user_id, seconds in rows:
        spent.setdefault(user_id, []).append(seconds)
    out = {}
    for user_id, values in spent.items():
        x = np.asarray(values)
        out[user_id] = {
            "items": len(x),
            "median_seconds": float(np.median(x)),
            "too_fast": int((x < too_fast).sum()),
            "too_fast_share": float((x < too_fast).mean()),
        }
    return out


def _controls(project: Project) -> dict[int, dict]:
    answers = checked_answers(project=project, kind=QualityItemKind.CONTROL)
    out: dict[int, dict] = {}
    for user_id in np.unique(answers.annotator).tolist():
        mine = np.nonzero(answers.annotator == user_id)[0]
        series, right, total = [], 0, 0
        for assignment in dict.fromkeys(answers.assignment[mine].tolist()):
            rows = mine[answers.assignment[mine] == assignment]
            right += int(answers.correct[rows].sum())
            total += len(rows)
            when = answers.submitted_at[rows[0]]
            series.append(
                {
                    "submitted_at": when.isoformat() if when else None,
                    "accuracy": float(answers.correct[rows].mean()),
                    "cumulative": right / total,
                }
            )
        out[user_id] = {"items": len(series), "answers": total, "accuracy": right / total, "series": series}
    return out


def _straight(judgements: dict[str, CriterionJudgements]) -> dict[int, dict]:
    """Straight-lining per annotator: an item is (annotator, dialogue), a group the scale and speaker asked."""
    shift = np.int64(1) << 32
    keys, groups, values = [], [], []
    scale_ids: dict[tuple, int] = {}
    for data in judgements.values():
        if not len(data.value):
            continue
        users = data.annotators[data.annotator].astype(np.int64)
        keys.append(users * shift + data.unit_dialogue[data.unit])
        speakers, speaker_index = np.unique(data.unit_speaker[data.unit].astype(str), return_inverse=True)
        ids = [scale_ids.setdefault((tuple(data.values), s), len(scale_ids)) for s in speakers.tolist()]
        groups.append(np.array(ids, dtype=np.int64)[speaker_index.reshape(-1)])
        values.append(data.value.astype(np.int64))
    if not keys:
        return {}
    result = straight_lining(np.concatenate(keys), np.concatenate(groups), np.concatenate(values))
    owners = result.items >> 32
    out = {}
    for user_id in np.unique(owners).tolist():
        mine = owners == user_id
        eligible = int(result.eligible[mine].sum())
        out[user_id] = {
            "eligible": eligible,
            "straight": int(result.straight[mine].sum()),
            "share": float(result.straight[mine].sum() / eligible) if eligible else None,
        }
    return out


def _adjudicated(project: Project, judgements: dict[str, CriterionJudgements]) -> dict[int, dict]:
    settled = adjudicated_labels(project=project)
    out: dict[int, dict] = {}
    if not settled:
        return out
    for key, data in judgements.items():
        mine = {(k[1], k[2]): v["value"] for k, v in settled.items() if k[0] == key}
        if not mine or not len(data.value):
            continue
        for k in range(len(data.value)):
            u = data.unit[k]
            final = mine.get((int(data.unit_dialogue[u]), int(data.unit_index[u])))
            if final is None:
                continue
            entry = out.setdefault(int(data.annotators[data.annotator[k]]), {"units": 0, "agree": 0})
            entry["units"] += 1
            entry["agree"] += data.values[data.value[k]] == final
    for entry in out.values():
        entry["agreement"] = entry["agree"] / entry["units"]
    return out


# Flag messages: the payload keeps each flag in English ("flags") and as its message and parameters
# ("flag_messages"), which the dashboard translates when it shows them (the payload is computed by a worker,
# in no reader's language).
FLAG_MESSAGES = {
    "alpha": gettext_noop("agreement rises without them: %(key)s alpha %(with)s with them, %(without)s without"),
    "control": gettext_noop("control accuracy %(accuracy)s (below %(threshold)s); control items answered: %(items)s"),
    "straight": gettext_noop("straight-lining: the same value on every question in %(share)s of items"),
    "fast": gettext_noop("too fast: %(fast)s of %(items)s items under %(seconds)s s"),
    "spammer": gettext_noop("Dawid-Skene rates their %(key)s labels as a spammer's (score %(score)s)"),
    "adjudicated": gettext_noop("agrees with adjudicated labels on %(share)s of %(units)s units"),
}


def _flags(entry: dict, alphas: dict[str, float | None], t: dict) -> list[tuple[str, dict]]:
    """The flags an annotator's figures raise against the thresholds ``t`` (``THRESHOLDS`` with the project's
    own control accuracy): (message, parameters), the message untranslated."""
    flags = []
    for key, loo in entry["alpha"].items():
        if loo["effect"] is not None and loo["effect"] < t["alpha_effect"]:
            params = {"key": key, "with": f"{alphas[key]:.2f}", "without": f"{loo['without']:.2f}"}
            flags.append((FLAG_MESSAGES["alpha"], params))
    control = entry.get("control")
    if control and control["answers"] >= t["min_answers"] and control["accuracy"] < t["control_accuracy"]:
        params = {
            "accuracy": f"{control['accuracy']:.0%}",
            "threshold": f"{t['control_accuracy']:.0%}",
            "items": control["items"],
        }
        flags.append((FLAG_MESSAGES["control"], params))
    straight = entry.get("straight_lining")
    if straight and straight["eligible"] >= t["min_answers"] and (straight["share"] or 0) > t["straight_lining"]:
        flags.append((FLAG_MESSAGES["straight"], {"share": f"{straight['share']:.0%}"}))
    timing = entry.get("timing")
    if timing and timing["items"] >= t["min_answers"] and timing["too_fast_share"] > t["too_fast"]:
        params = {"fast": timing["too_fast"], "items": timing["items"], "seconds": entry["too_fast_seconds"]}
        flags.append((FLAG_MESSAGES["fast"], params))
    for key, models in entry["models"].items():
        ds = models.get("dawid-skene")
        if ds is not None and ds < t["dawid_skene_spammer"]:
            flags.append((FLAG_MESSAGES["spammer"], {"key": key, "score": f"{ds:.2f}"}))
    adjudicated = entry.get("adjudicated")
    if (
        adjudicated
        and adjudicated["units"] >= t["min_answers"]
        and adjudicated["agreement"] < t["adjudicated_agreement"]
    ):
        params = {"share": f"{adjudicated['agreement']:.0%}", "units": adjudicated["units"]}
        flags.append((FLAG_MESSAGES["adjudicated"], params))
    return flags


def reliability_summary(
    project: Project, judgements: dict[str, CriterionJudgements], models: dict | None = None
) -> dict:
    """The ``reliability`` entry of the statistics payload.

    ``models`` is the stored estimate of the latent-truth models for these judgements
    (``model_reliability_stored``), or None while the workers estimate it (``models_pending``)."""
    settings = QualitySettings.objects.filter(project=project).first()
    too_fast = settings.too_fast_seconds if settings else QualitySettings._meta.get_field("too_fast_seconds").default
    control_flag = (
        settings.control_accuracy_flag if settings else QualitySettings._meta.get_field("control_accuracy_flag").default
    )
    thresholds = {**THRESHOLDS, "control_accuracy": control_flag}
    users: set[int] = set()
    for data in judgements.values():
        users.update(int(u) for u in data.annotators)
    controls = _controls(project)
    users.update(controls)
    users -= set(population_of(project).excluded)
    names = dict(get_user_model().objects.filter(pk__in=users).values_list("pk", "username"))
    entries: dict[int, dict] = {
        u: {"alpha": {}, "models": {}, "too_fast_seconds": too_fast, "judgements": 0} for u in users
    }
    alphas, kappas, models_info = {}, {}, {}
    for key, data in judgements.items():
        if not len(data.value):
            continue
        level = data.criterion.level if data.criterion.level in ("nominal", "ordinal", "interval") else "nominal"
        loo = krippendorff_alpha_leave_one_out(
            data.unit, data.annotator, data.value, n_annotators=len(data.annotators), level=level,
            values=_numeric(data),
        )  # fmt: skip
        alphas[key] = None if np.isnan(loo.alpha) else loo.alpha
        per = np.bincount(data.annotator, minlength=len(data.annotators))
        estimate = (models or {}).get(key)
        models_info[key] = (
            estimate["methods"]
            if estimate
            else {m: {"reliability": RELIABILITY[m], "skipped": PENDING} for m in MODEL_LIMITS}
        )
        for a, user_id in enumerate(data.annotators.tolist()):
            if user_id not in entries:
                continue
            without = float(loo.without[a])
            entries[user_id]["judgements"] += int(per[a])
            entries[user_id]["alpha"][key] = {
                "without": None if np.isnan(without) else without,
                "effect": None if np.isnan(without) or np.isnan(loo.alpha) else float(loo.effect[a]),
            }
            if estimate:
                entries[user_id]["models"][key] = estimate["annotators"].get(str(user_id), {})
        kappas[key] = _kappa(data, names)
    timing = _seconds(project, too_fast)
    straight = _straight(judgements)
    adjudicated = _adjudicated(project, judgements)
    out = {}
    for user_id, entry in sorted(entries.items(), key=lambda kv: names.get(kv[0], "")):
        entry["control"] = controls.get(user_id)
        entry["timing"] = timing.get(user_id)
        entry["straight_lining"] = straight.get(user_id)
        entry["adjudicated"] = adjudicated.get(user_id)
        raised = _flags(entry, alphas, thresholds)
        entry["flags"] = [message % params for message, params in raised]
        entry["flag_messages"] = [{"message": message, "params": params} for message, params in raised]
        out[names.get(user_id, str(user_id))] = entry
    return {
        "annotators": out,
        "alpha": alphas,
        "kappa": {k: v for k, v in kappas.items() if v is not None},
        "models": models_info,
        "models_pending": models is None,
        "thresholds": {**thresholds, "too_fast_seconds": too_fast, "min_model_judgements": MIN_MODEL_JUDGEMENTS},
    }
