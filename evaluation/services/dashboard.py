"""The dashboard's parts of the statistics payload: per-annotator figures, value and gold
distributions, and the most disputed units."""

from __future__ import annotations

import numpy as np
from django.contrib.auth import get_user_model

from annotator.models import Assignment, AssignmentStatus, Project
from annotator.selectors.judgement_arrays import CriterionJudgements
from scoring.gold import gold_distribution

DISPUTED_LIMIT = 20


def _numeric(data: CriterionJudgements) -> np.ndarray | None:
    try:
        return np.array([float(v) for v in data.values])
    except ValueError:
        return None if data.criterion.level == "nominal" else np.arange(len(data.values), dtype=float)


def normalised_entropy(distributions: np.ndarray) -> np.ndarray:
    """Entropy of each row divided by log(number of bins): 0 unanimous, 1 uniform.

    >>> normalised_entropy(np.array([[1.0, 0.0], [0.5, 0.5]])).tolist()
    [0.0, 1.0]
    """
    p = np.asarray(distributions, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log(np.where(p > 0, p, 1)), 0.0)
    return terms.sum(axis=-1) / np.log(p.shape[-1]) if p.shape[-1] > 1 else np.zeros(len(p))


def unit_agreement(counts: np.ndarray) -> np.ndarray:
    """The share of a unit's pairs of labels that agree, sum_c n_c (n_c - 1) / (m (m - 1)): Fleiss' P_i.

    >>> unit_agreement(np.array([3, 1, 0])).round(4).tolist(), unit_agreement(np.array([[2, 0], [1, 1]])).tolist()
    (0.5, [1.0, 0.0])
    """
    n = np.asarray(counts, dtype=float)
    m = n.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m >= 2, (n * (n - 1)).sum(axis=-1) / (m * (m - 1)), np.nan)


def annotator_figures(project: Project, judgements: dict[str, CriterionJudgements]) -> dict[str, dict]:
    """Per annotator: judgements, mean rating and z-score bias per ordered criterion, agreement with the
    majority, median seconds per submitted item."""
    stats: dict[int, dict] = {}
    for key, data in judgements.items():
        if not len(data.value):
            continue
        counts = data.counts()
        majority = counts.argmax(axis=1)
        pairable = counts.sum(axis=1) >= 2
        agree = (data.value == majority[data.unit]) & pairable[data.unit]
        numbers = _numeric(data)
        if numbers is not None:
            x = numbers[data.value]
            unit_total = np.bincount(data.unit, weights=x, minlength=data.n_units)
            unit_count = np.bincount(data.unit, minlength=data.n_units)
            others = unit_count[data.unit] - 1
            with np.errstate(invalid="ignore", divide="ignore"):
                deviation = np.where(others > 0, x - (unit_total[data.unit] - x) / np.maximum(others, 1), np.nan)
            sd = x.std() or 1.0
        for a, user_id in enumerate(data.annotators):
            mine = data.annotator == a
            entry = stats.setdefault(int(user_id), {"judgements": 0, "agree": 0, "pairable": 0, "criteria": {}})
            entry["judgements"] += int(mine.sum())
            entry["agree"] += int(agree[mine].sum())
            entry["pairable"] += int(pairable[data.unit[mine]].sum())
            if numbers is not None:
                dev = deviation[mine]
                dev = dev[np.isfinite(dev)]
                entry["criteria"][key] = {
                    "mean": float(x[mine].mean()),
                    "z_bias": float(dev.mean() / sd) if len(dev) else None,
                }
    names = dict(get_user_model().objects.filter(pk__in=stats).values_list("pk", "username"))
    seconds: dict[int, list[int]] = {}
    for user_id, spent in Assignment.objects.filter(
        dialogue__project=project, status=AssignmentStatus.SUBMITTED, imported=False
    ).values_list("annotator_id", "seconds_spent"):
        seconds.setdefault(user_id, []).append(spent)
    out = {}
    for user_id, entry in sorted(stats.items(), key=lambda kv: names.get(kv[0], "")):
        out[names.get(user_id, str(user_id))] = {
            "judgements": entry["judgements"],
            "agreement_with_majority": entry["agree"] / entry["pairable"] if entry["pairable"] else None,
            "median_seconds": float(np.median(seconds[user_id])) if user_id in seconds else None,
            "criteria": entry["criteria"],
        }
    return out


def distributions_and_disputes(
    project: Project, judgements: dict[str, CriterionJudgements], *, running: bool = True
) -> dict:
    """Value counts per criterion, the mean gold distribution and entropy histogram, and the most disputed units
    (those whose annotators disagree: entropy above zero) with their labels, entropy and pairwise agreement.

    ``running`` False leaves out the value counts and the mean gold distribution, which the live state keeps
    current (``incremental.RUNNING_FIGURES``): the scheduled recomputation stores the rest."""
    external = dict(project.dialogues.values_list("pk", "external_id"))
    values, gold, disputed = {}, {}, []
    for key, data in judgements.items():
        counts = data.counts()
        if not len(counts):
            continue
        if running:
            values[key] = dict(zip(data.values, counts.sum(axis=0).astype(int).tolist()))
        pairable = counts.sum(axis=1) >= 2
        if not pairable.any():
            continue
        distributions = gold_distribution(counts[pairable])
        entropy = normalised_entropy(distributions)
        histogram, _edges = np.histogram(entropy, bins=10, range=(0, 1))
        gold[key] = {"entropy_histogram": histogram.tolist()}
        if running:
            gold[key] = {"mean_distribution": dict(zip(data.values, distributions.mean(axis=0).tolist())), **gold[key]}
        rows = np.nonzero(pairable)[0]
        disputed_units = np.nonzero(entropy > 1e-12)[0]  # unanimous units are not disputed
        for i in disputed_units[np.argsort(-entropy[disputed_units], kind="stable")][:DISPUTED_LIMIT]:
            u = rows[i]
            disputed.append(
                {
                    "criterion": key,
                    "dialogue_id": int(data.unit_dialogue[u]),
                    "dialogue": external[int(data.unit_dialogue[u])],
                    "unit": int(data.unit_index[u]),
                    "entropy": float(entropy[i]),
                    "agreement": float(unit_agreement(counts[u])),
                    "n_labels": int(counts[u].sum()),
                    "counts": dict(zip(data.values, counts[u].tolist())),
                }
            )
    disputed.sort(key=lambda d: -d["entropy"])
    return {**({"value_counts": values} if running else {}), "gold": gold, "disputed": disputed[:DISPUTED_LIMIT]}
