"""The two statistics a stop rule compares with its threshold, vectorised over units.

The gold of a unit is what the platform publishes: its counts normalised (``scoring.gold``), the share of
annotators who chose each category. A unit with no label yet has no gold; it is taken as the uniform
distribution (the posterior mean under the symmetric prior), so that the first label has a large
expected change.

The next label is predicted by the Dirichlet-multinomial posterior predictive: with a symmetric
Dirichlet(``prior``) prior (0.5 is Jeffreys', 1 is Laplace's) and counts c over K categories,
P(next = k) = (c_k + prior) / (n + K prior).
"""

from __future__ import annotations

import numpy as np

from scoring.checks import label_counts


def _counts(counts) -> np.ndarray:
    return label_counts(counts, min_categories=2)


def _prior(prior: float) -> float:
    if not prior > 0:
        raise ValueError(f"the Dirichlet prior must be positive, got {prior}")
    return float(prior)


def jsd_rows(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Jensen-Shannon divergence (log base 2, range [0, 1]) along the last axis; leading axes broadcast.

    The same divergence as ``scoring.measures.jsd``, without its input checks, for the inner loops here.
    """
    p, q = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(q, dtype=float))
    m = p + q
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.where(p > 0, p * np.log2(np.where(p > 0, 2 * p / m, 1.0)), 0.0)
        right = np.where(q > 0, q * np.log2(np.where(q > 0, 2 * q / m, 1.0)), 0.0)
    return (left.sum(axis=-1) + right.sum(axis=-1)) / 2


def gold_of(counts) -> np.ndarray:
    """Each unit's gold: its counts normalised; uniform for a unit without labels."""
    counts = _counts(counts)
    n = counts.sum(axis=1, keepdims=True)
    uniform = np.full_like(counts, 1.0 / counts.shape[1])
    return np.divide(counts, n, out=uniform, where=n > 0)


def predictive(counts, prior: float = 0.5) -> np.ndarray:
    """P(next label = k) per unit under the Dirichlet-multinomial posterior predictive."""
    counts = _counts(counts)
    a = counts + _prior(prior)
    return a / a.sum(axis=1, keepdims=True)


def expected_gold_change(counts, prior: float = 0.5) -> np.ndarray:
    """Expected JSD between each unit's gold now and its gold after one more label, shape (units,).

    E = sum_k P(next = k) JSD(g, g_k+), with g = c / n and g_k+ = (c + e_k) / (n + 1) (see the module
    docstring for the gold and the predictive). Closed form over the K categories, vectorised over units.
    It shrinks as labels arrive (each label moves the gold by about 1 / (n + 1)); at equal n a unit where
    annotators split unevenly expects more change than one where they agree, but a unanimous unit is not
    settled at once: the prior keeps a chance that the next annotator disagrees.

    Examples
    --------
    >>> expected_gold_change([[0, 0, 0], [2, 1, 0], [12, 0, 0]]).round(4).tolist()
    [0.4591, 0.0256, 0.0029]
    """
    counts = _counts(counts)
    n = counts.sum(axis=1)
    k = counts.shape[1]
    after = (counts[:, None, :] + np.eye(k)[None, :, :]) / (n + 1)[:, None, None]  # (units, next label, K)
    change = jsd_rows(gold_of(counts)[:, None, :], after)  # (units, next label)
    return (predictive(counts, prior) * change).sum(axis=1)


def interval_width(counts, level: float = 0.95, prior: float = 0.5) -> np.ndarray:
    """The widest equal-tailed marginal credible interval of the Dirichlet posterior per unit, shape (units,).

    The posterior is Dirichlet(c + prior); category k's marginal is Beta(a_k, a_0 - a_k). The width is the
    largest over categories of its ``level`` interval, on the probability scale [0, 1].
    """
    counts = _counts(counts)
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    a = counts + _prior(prior)
    rest = a.sum(axis=1, keepdims=True) - a
    tail = (1 - level) / 2
    from scipy.stats import beta  # here, not at import: the web process starts without scipy

    width = beta.ppf(1 - tail, a, rest) - beta.ppf(tail, a, rest)
    return width.max(axis=1)
