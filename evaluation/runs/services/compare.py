"""Comparing a project's scored runs on one metric: stability, discriminative power, pairwise p-values."""

from __future__ import annotations

import math

import numpy as np
from django.conf import settings
from django.utils import timezone

from annotator.models import Project
from evaluation.json_codec import json_finite
from evaluation.models import Run, RunComparison, RunKind, RunStatus
from evaluation.selectors.fingerprint import judgements_fingerprint
from scoring.significance import discriminative_power, paired_bootstrap, ranking_stability, tukey_hsd


def comparable_runs(project: Project, fingerprint: str):
    """The runs a comparison takes: scored (not the reorderings) against the gold of ``fingerprint``. A run
    scored against an earlier gold is left out until it is scored again (``runs.freshness``)."""
    return (
        Run.objects.filter(project=project, status=RunStatus.SCORED, gold_fingerprint=fingerprint)
        .exclude(kind=RunKind.REORDERING)
        .order_by("name")
    )


def run_matrix(
    project: Project, metric: str, fingerprint: str | None = None
) -> tuple[list[str], list[str], np.ndarray]:
    """(run names, item ids, items x runs scores) over the dialogues every run scored against the current gold
    (or that of ``fingerprint``) has a finite score for."""
    fingerprint = fingerprint or judgements_fingerprint(project)
    runs = list(comparable_runs(project, fingerprint).values_list("name", "per_dialogue"))
    if len(runs) < 2:
        raise ValueError(
            f"project {project.slug} needs at least two runs scored against the current gold, has {len(runs)}"
        )
    items = None
    for _name, per_dialogue in runs:
        have = {
            d
            for d, metrics in per_dialogue.items()
            if isinstance(metrics.get(metric), (int, float)) and math.isfinite(metrics[metric])
        }
        items = have if items is None else items & have
    if not items:
        known = sorted({m for _n, pd in runs for metrics in pd.values() for m in metrics})
        raise ValueError(f"no dialogue has a {metric!r} score in every run; per-dialogue metrics: {', '.join(known)}")
    order = sorted(items)
    matrix = np.array([[per_dialogue[d][metric] for _n, per_dialogue in runs] for d in order], dtype=float)
    return [n for n, _pd in runs], order, matrix


def runs_compare(
    *,
    project: Project,
    metric: str,
    trials: int = 10_000,
    stability_trials: int = 500,
    share: float = 0.2,
    alpha: float = 0.05,
    seed: int = 0,
    fingerprint: str | None = None,
) -> dict:
    names, items, matrix = run_matrix(project, metric, fingerprint)
    tukey = tukey_hsd(matrix, trials, seed)
    bootstrap = paired_bootstrap(matrix, trials, seed)
    stability = ranking_stability(matrix, share, stability_trials, seed) if len(items) >= 2 / share else None
    return {
        "metric": metric,
        "runs": names,
        "means": dict(zip(names, matrix.mean(axis=0).tolist())),
        "n_items": len(items),
        "ranking_stability": None
        if stability is None
        else {"mean_tau": stability.mean_tau, "std_tau": stability.std_tau, "trials": stability.trials, "share": share},
        "tukey_hsd": {
            "trials": trials,
            "discriminative_power": discriminative_power(tukey, alpha),
            "p_values": tukey.tolist(),
        },
        "paired_bootstrap": {
            "trials": trials,
            "discriminative_power": discriminative_power(bootstrap, alpha),
            "p_values": bootstrap.tolist(),
        },
        "alpha": alpha,
    }


def comparisons_refresh(*, project: Project, trials: int | None = None) -> int:
    """Recompute the stored comparison of every per-dialogue metric once three or more runs are scored against
    the current gold (the others are left out: their scores are stale until they are scored again).

    A metric that cannot be compared is stored with the reason (``RunComparison.error``); returns how
    many were computed. Each comparison keeps the gold's fingerprint, so that the leaderboard can tell
    one computed before the gold changed."""
    fingerprint = judgements_fingerprint(project)
    runs = list(comparable_runs(project, fingerprint).values_list("per_dialogue", flat=True))
    RunComparison.objects.filter(project=project).delete()
    if len(runs) < 3:
        return 0
    metrics = sorted({m for per_dialogue in runs for values in per_dialogue.values() for m in values})
    trials = trials or settings.COMPARISON_TRIALS
    stored = 0
    for metric in metrics:
        try:
            compared = runs_compare(project=project, metric=metric, trials=trials, fingerprint=fingerprint)
            payload, error = json_finite(compared), ""
        except ValueError as exc:  # kept, so that the page can say why instead of "not computed yet"
            payload, error = {}, str(exc)
        RunComparison.objects.create(
            project=project,
            metric=metric,
            payload=payload,
            error=error,
            computed_at=timezone.now(),
            gold_fingerprint=fingerprint,
        )
        stored += not error
    return stored
