"""Correlating a per-dialogue measure with subjective ratings.

Ratings are z-scored per annotator (``scoring.agreement.annotator_z_scores``) and averaged per
dialogue; the measure is then compared with Kendall's tau-b (with a 95% bootstrap confidence
interval over dialogues) and Pearson's r, as Zeng et al. (2017, Table 4) report for AUCH.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from scoring.agreement import annotator_z_scores


@dataclass(frozen=True)
class Correlation:
    tau: float
    ci_low: float
    ci_high: float
    pearson: float
    n: int


def mean_z_scores(ratings) -> np.ndarray:
    """Per dialogue, the mean over annotators of their z-scored ratings (annotators x dialogues, NaN missing)."""
    z = annotator_z_scores(ratings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a dialogue nobody rated: NaN
        return np.nanmean(z, axis=0)


def correlate(measure, ratings, *, trials: int = 1000, confidence: float = 0.95, seed: int | None = 0) -> Correlation:
    """Kendall's tau-b (bootstrap percentile CI) and Pearson's r between ``measure`` and the mean z-scores.

    ``measure``: per dialogue (n,); ``ratings``: annotators x dialogues with NaN.
    """
    x = np.asarray(measure, dtype=float)
    y = mean_z_scores(ratings)
    use = np.isfinite(x) & np.isfinite(y)
    x, y = x[use], y[use]
    if len(x) < 3:
        raise ValueError("needs at least three dialogues with both a measure and ratings")
    tau = stats.kendalltau(x, y).statistic
    rng = np.random.default_rng(seed)
    samples = rng.integers(0, len(x), size=(trials, len(x)))
    boot = np.array([stats.kendalltau(x[s], y[s]).statistic for s in samples])
    boot = boot[np.isfinite(boot)]
    low, high = np.quantile(boot, [(1 - confidence) / 2, 1 - (1 - confidence) / 2])
    return Correlation(float(tau), float(low), float(high), float(stats.pearsonr(x, y).statistic), int(len(x)))
