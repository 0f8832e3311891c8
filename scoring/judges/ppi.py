"""Prediction-powered inference of a mean (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, Science 2023).

With human labels ``Y_i`` on ``n`` labelled items, the judge's predictions ``f(X_i)`` on the same items and
``f(X~_j)`` on ``N`` items without human labels, the prediction-powered estimate of the mean of ``Y`` is

    theta_PP = mean_j f(X~_j) - mean_i (f(X_i) - Y_i)

(the judge's mean corrected by the rectifier, its mean error on the labelled items), unbiased whatever the
judge's quality. Its CLT interval (the paper's Algorithm "mean estimation") is
``theta_PP +- z_{1-a/2} sqrt(sigma_f^2 / N + sigma_rect^2 / n)`` with ``sigma_f^2`` the variance of the
judge's predictions on the unlabelled items and ``sigma_rect^2`` that of ``f(X_i) - Y_i``. Beside it, the
classical interval from the humans alone, ``mean(Y) +- z sqrt(sigma_Y^2 / n)``; the ratio of the two widths
says how much the judge narrowed the interval (below 1: the judge helped; a random judge gives about or
above 1, never a biased estimate).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

CONFIDENCE = 0.95


@dataclass(frozen=True)
class MeanEstimate:
    """An estimate of a mean with its interval, and the number of labelled (and unlabelled) items."""

    estimate: float
    low: float
    high: float
    n_labelled: int
    n_unlabelled: int = 0

    @property
    def width(self) -> float:
        return self.high - self.low

    def as_dict(self) -> dict:
        finite = lambda x: float(x) if np.isfinite(x) else None
        return {
            "estimate": finite(self.estimate),
            "ci": [finite(self.low), finite(self.high)],
            "n_labelled": self.n_labelled,
            "n_unlabelled": self.n_unlabelled,
        }


def classical_mean(y, *, confidence: float = CONFIDENCE) -> MeanEstimate:
    """The mean of the human labels with its CLT interval, mean +- z sd / sqrt(n).

    >>> e = classical_mean([0.0, 1.0] * 50)
    >>> e.estimate, round(e.low, 4), round(e.high, 4)
    (0.5, 0.4015, 0.5985)
    """
    y = np.asarray(y, dtype=float)
    n = len(y)
    if n < 2:
        return MeanEstimate(float(y.mean()) if n else float("nan"), float("nan"), float("nan"), n)
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    half = z * y.std(ddof=1) / np.sqrt(n)
    return MeanEstimate(float(y.mean()), float(y.mean() - half), float(y.mean() + half), n)


def ppi_mean(y, f_labelled, f_unlabelled, *, confidence: float = CONFIDENCE) -> MeanEstimate:
    """The prediction-powered estimate of the mean of ``y`` and its CLT interval.

    >>> e = ppi_mean([1.0, 0.0, 1.0, 1.0], [1.0, 0.0, 0.0, 1.0], [1.0, 0.0] * 50)
    >>> round(e.estimate, 4), e.n_labelled, e.n_unlabelled
    (0.75, 4, 100)
    """
    y, f, f_u = (np.asarray(a, dtype=float) for a in (y, f_labelled, f_unlabelled))
    n, big_n = len(y), len(f_u)
    if n < 2 or big_n < 2:
        return MeanEstimate(float("nan"), float("nan"), float("nan"), n, big_n)
    rectifier = f - y
    estimate = f_u.mean() - rectifier.mean()
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    half = z * np.sqrt(f_u.var(ddof=1) / big_n + rectifier.var(ddof=1) / n)
    return MeanEstimate(float(estimate), float(estimate - half), float(estimate + half), n, big_n)
