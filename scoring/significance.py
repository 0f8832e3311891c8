"""Choosing metrics: system ranking stability and discriminative power (Tsunomori et al. 2020).

Input is a matrix of per-item scores, items x runs, for one metric.

- Ranking stability: over R trials, draw two disjoint random samples of a share of the items,
  rank the runs by their mean score on each, and average Kendall's tau-b between the rankings.
- Randomised Tukey HSD (Carterette 2012; Sakai 2014): in each of B trials the scores of every
  item are shuffled across the runs; the p-value of a pair of runs is the share of trials whose
  largest difference between run means reaches the pair's observed difference. Every pair is
  tested against the same null distribution of the maximum, which controls the family-wise error.
- Paired bootstrap test (Sakai 2006): per pair, the share of B bootstrap samples of the items
  whose studentised mean difference, shifted to the null, is at least as extreme as the observed one.
- Discriminative power: the share of run pairs with p < alpha.

All tests are vectorised over trials (in chunks, to bound memory), so B = 10,000 is practical.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _scores(scores) -> np.ndarray:
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError(f"scores must be items x runs with at least two of each, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("scores must be finite (drop items a run did not score)")
    return x


def tukey_hsd(scores, trials: int = 10_000, seed: int | None = 0, *, chunk: int | None = None) -> np.ndarray:
    """Randomised Tukey HSD p-values for every pair of runs (runs x runs, 1 on the diagonal).

    Parameters
    ----------
    scores : array-like, shape (n_items, n_runs)
        Each run's score on each item (topic, dialogue).
    trials : int
        Random permutations of each item's scores across runs.
    seed : int or None
    chunk : int, optional
        Trials drawn at once (default: as many as fit in about 4 million numbers).

    Returns
    -------
    ndarray, shape (n_runs, n_runs)

    Examples
    --------
    >>> x = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.9, 0.2], [0.8, 0.1]])
    >>> float(tukey_hsd(x, trials=2000, seed=1)[0, 1]) < 0.1
    True
    """
    x = _scores(scores)
    items, runs = x.shape
    observed = np.abs(x.mean(axis=0)[:, None] - x.mean(axis=0)[None, :])
    rng = np.random.default_rng(seed)
    chunk = chunk or max(1, min(trials, 4_000_000 // (items * runs)))
    exceed = np.zeros((runs, runs))
    done = 0
    while done < trials:
        k = min(chunk, trials - done)
        shuffled = rng.permuted(np.broadcast_to(x, (k, items, runs)), axis=2)
        means = shuffled.mean(axis=1)  # k x runs
        spread = means.max(axis=1) - means.min(axis=1)  # k
        # count trials whose spread reaches each observed difference (sorted search, not k x runs x runs)
        spread.sort()
        exceed += k - np.searchsorted(spread, observed - 1e-12, side="left")
        done += k
    p = exceed / trials
    np.fill_diagonal(p, 1.0)
    return p


def tukey_hsd_loop(scores, trials: int, seed: int | None = 0) -> np.ndarray:
    """The same test written as a plain loop over trials and pairs: the obviously correct reference.

    Parameters
    ----------
    scores : array-like, shape (n_items, n_runs)
        Each run's score on each item (topic, dialogue).
    trials : int
    seed : int or None

    Examples
    --------
    >>> x = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3]])
    >>> tukey_hsd_loop(x, trials=20, seed=1).shape
    (2, 2)
    """
    x = _scores(scores)
    rng = np.random.default_rng(seed)
    _items, runs = x.shape
    means = x.mean(axis=0)
    spreads = []
    for _ in range(trials):
        shuffled = np.array([rng.permutation(row) for row in x])
        m = shuffled.mean(axis=0)
        spreads.append(m.max() - m.min())
    p = np.ones((runs, runs))
    for i in range(runs):
        for j in range(runs):
            if i != j:
                p[i, j] = sum(s >= abs(means[i] - means[j]) - 1e-12 for s in spreads) / trials
    return p


def paired_bootstrap(scores, trials: int = 10_000, seed: int | None = 0, *, chunk: int = 1000) -> np.ndarray:
    """Two-sided paired bootstrap p-values for every pair of runs (runs x runs, 1 on the diagonal).

    Parameters
    ----------
    scores : array-like, shape (n_items, n_runs)
        Each run's score on each item (topic, dialogue).
    trials : int
        Bootstrap resamples of the items.
    seed : int or None
    chunk : int
        Resamples drawn at once.

    Returns
    -------
    ndarray, shape (n_runs, n_runs)

    Examples
    --------
    >>> x = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.9, 0.2], [0.8, 0.1]])
    >>> float(paired_bootstrap(x, trials=2000, seed=1)[0, 1]) < 0.1
    True
    """
    x = _scores(scores)
    items, runs = x.shape
    i, j = np.triu_indices(runs, 1)
    d = x[:, i] - x[:, j]  # items x pairs
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        t_obs = np.where(sd > 0, mean / (sd / np.sqrt(items)), np.where(mean == 0, 0.0, np.inf))
    centred = d - mean
    rng = np.random.default_rng(seed)
    exceed = np.zeros(len(i))
    done = 0
    while done < trials:
        k = min(chunk, trials - done)
        weights = rng.multinomial(items, np.full(items, 1 / items), size=k).astype(float)  # k x items
        m = weights @ centred / items
        second = weights @ centred**2 / items
        var = (second - m**2) * items / (items - 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            # a resample without variance but with a shifted mean is infinitely extreme (conservative
            # for tiny item sets, where it is common); one with neither counts as t = 0
            t = np.where(
                var > 1e-15, m / np.sqrt(np.maximum(var, 1e-300) / items), np.where(np.abs(m) > 1e-12, np.inf, 0.0)
            )
        exceed += (np.abs(t) >= np.abs(t_obs) - 1e-12).sum(axis=0)
        done += k
    p = np.ones((runs, runs))
    p[i, j] = p[j, i] = exceed / trials
    return p


def discriminative_power(p_values, alpha: float = 0.05) -> float:
    """Share of run pairs whose p-value is below ``alpha``.

    Parameters
    ----------
    p_values : array-like, shape (n_runs, n_runs)
        Symmetric, as ``tukey_hsd`` returns; the pairs above the diagonal count.
    alpha : float

    Examples
    --------
    >>> discriminative_power(np.array([[1, 0.01, 0.2], [0.01, 1, 0.04], [0.2, 0.04, 1]]))
    0.6666666666666666
    """
    p = np.asarray(p_values, dtype=float)
    i, j = np.triu_indices(p.shape[0], 1)
    return float((p[i, j] < alpha).mean())


@dataclass(frozen=True)
class Stability:
    mean_tau: float
    std_tau: float
    trials: int


def ranking_stability(scores, share: float = 0.2, trials: int = 500, seed: int | None = 0) -> Stability:
    """Mean Kendall's tau-b between run rankings on two disjoint random samples of ``share`` of the items.

    Parameters
    ----------
    scores : array-like, shape (n_items, n_runs)
        Each run's score on each item (topic, dialogue).
    share : float
        The share of the items in each of the two samples (at most 0.5).
    trials : int
    seed : int or None

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(size=(200, 4)) + np.arange(4)
    >>> ranking_stability(x, trials=50).mean_tau > 0.9
    True
    """
    x = _scores(scores)
    items, runs = x.shape
    if not 0 < share <= 0.5:
        raise ValueError("share must be in (0, 0.5] so that the two samples are disjoint")
    size = max(1, round(share * items))
    rng = np.random.default_rng(seed)
    order = rng.random((trials, items)).argsort(axis=1)
    first = x[order[:, :size]].mean(axis=1)  # trials x runs
    second = x[order[:, size : 2 * size]].mean(axis=1)
    i, j = np.triu_indices(runs, 1)
    s1, s2 = np.sign(first[:, j] - first[:, i]), np.sign(second[:, j] - second[:, i])
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (s1 * s2).sum(axis=1) / np.sqrt((s1**2).sum(axis=1) * (s2**2).sum(axis=1))
    tau = tau[np.isfinite(tau)]
    return Stability(float(tau.mean()), float(tau.std(ddof=1)) if len(tau) > 1 else 0.0, len(tau))
