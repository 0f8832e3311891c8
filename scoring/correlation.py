"""Correlating a per-dialogue measure with subjective ratings.

Ratings are z-scored per annotator (``scoring.agreement.annotator_z_scores``) and averaged per
dialogue; the measure is then compared with Kendall's tau-b and Pearson's r, as Zeng et al.
(2017, sec. 5.1, Table 4) report for AUCH against the average ratings "with 95% confidence
intervals". The paper does not say how its intervals were computed; ours is the jackknife
interval of a U-statistic (tau plus or minus z times the delete-one jackknife standard error),
which needs one pass over the pairs instead of a thousand resamples, is deterministic, and on
samples of a few hundred dialogues or more agrees with the percentile bootstrap to about 0.01
(tests/scoring/test_correlation.py).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from scoring.agreement import annotator_z_scores


@dataclass(frozen=True)
class Correlation:
    tau: float
    ci_low: float
    ci_high: float
    pearson: float
    n: int


def mean_z_scores(ratings) -> np.ndarray:
    """Per dialogue, the mean over annotators of their z-scored ratings (annotators x dialogues, NaN missing).

    Parameters
    ----------
    ratings : array-like, shape (n_annotators, n_dialogues)
        Each annotator's rating of each dialogue, NaN where none.

    Returns
    -------
    ndarray, shape (n_dialogues,)

    Examples
    --------
    >>> mean_z_scores([[1, 3], [2, 4]]).tolist()
    [-1.0, 1.0]
    """
    z = annotator_z_scores(ratings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a dialogue nobody rated: NaN
        return np.nanmean(z, axis=0)


def _untied_partners(v: np.ndarray) -> np.ndarray:
    """For each item, how many other items have a different value."""
    _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
    return len(v) - counts[inverse]


def _below_both(rx: np.ndarray, ry: np.ndarray) -> np.ndarray:
    """For each item, how many items have a smaller x rank and a smaller y rank (a Fenwick tree over y ranks,
    filled in order of x, a group of equal x at a time so that equal x never counts)."""
    n = len(rx)
    size = int(ry.max()) + 2 if n else 1
    tree = [0] * (size + 1)
    out = np.zeros(n, dtype=np.int64)
    order = np.lexsort((ry, rx)).tolist()
    rx_list, ry_list = rx.tolist(), ry.tolist()
    start = 0
    while start < n:
        end = start
        while end < n and rx_list[order[end]] == rx_list[order[start]]:
            end += 1
        for k in range(start, end):  # count the y ranks below, before this group is added
            i = order[k]
            total, pos = 0, ry_list[i]  # ranks strictly below ry: positions 1..ry (ranks are 0-based)
            while pos > 0:
                total += tree[pos]
                pos -= pos & -pos
            out[i] = total
        for k in range(start, end):
            pos = ry_list[order[k]] + 1
            while pos <= size:
                tree[pos] += 1
                pos += pos & -pos
        start = end
    return out


def concordance_per_item(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """c_i = sum_j sign(x_i - x_j) sign(y_i - y_j): concordant minus discordant partners of each item.

    In O(n log n) rather than over all n^2 pairs (37,000 dialogues are 1.4 billion pairs): with
    A_i = #{x_j < x_i, y_j < y_i} and C_i = #{x_j > x_i, y_j > y_i} (the concordant partners),
    the discordant ones are B_i = #{x_j < x_i} - A_i - #{x_j < x_i, y_j = y_i} and
    D_i = #{y_j < y_i} - A_i - #{x_j = x_i, y_j < y_i}; c_i = A_i + C_i - B_i - D_i.

    Parameters
    ----------
    x, y : ndarray, shape (n,)
        Two scores of the same n items.

    Examples
    --------
    >>> concordance_per_item(np.array([1., 2., 3.]), np.array([1., 3., 2.])).tolist()
    [2.0, 0.0, 0.0]
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(x)
    if n == 0:
        return np.zeros(0)
    rx = np.unique(x, return_inverse=True)[1].reshape(-1).astype(np.int64)
    ry = np.unique(y, return_inverse=True)[1].reshape(-1).astype(np.int64)
    a = _below_both(rx, ry)
    c = _below_both(rx.max() - rx, ry.max() - ry)
    below_x = np.searchsorted(np.sort(rx), rx, side="left")
    below_y = np.searchsorted(np.sort(ry), ry, side="left")
    mx, my = int(rx.max()) + 1, int(ry.max()) + 1
    xy = np.sort(rx * my + ry)  # equal x, smaller y: between (rx, 0) and (rx, ry)
    same_x_below_y = np.searchsorted(xy, rx * my + ry, side="left") - np.searchsorted(xy, rx * my, side="left")
    yx = np.sort(ry * mx + rx)
    same_y_below_x = np.searchsorted(yx, ry * mx + rx, side="left") - np.searchsorted(yx, ry * mx, side="left")
    b = below_x - a - same_y_below_x
    d = below_y - a - same_x_below_y
    return (a + c - b - d).astype(float)


def kendall_tau_b_jackknife(x, y) -> tuple[float, np.ndarray]:
    """Kendall's tau-b of (x, y) and its n delete-one jackknife values, from per-item pair counts.

    tau_b = (C - D) / sqrt((P - T_x)(P - T_y)), P the number of pairs, T_x and T_y the pairs tied
    in x and in y. Leaving item i out removes its c_i concordances and its untied partners
    from each total, so all n jackknife values cost one pass over the pairs.

    Parameters
    ----------
    x, y : array-like, shape (n,)
        Two scores of the same n items.

    Returns
    -------
    tau : float
    jackknife : ndarray, shape (n,)
        tau-b with each item left out.

    Examples
    --------
    >>> round(kendall_tau_b_jackknife([1, 2, 3, 4], [1, 3, 2, 4])[0], 4)
    0.6667
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    c = concordance_per_item(x, y)
    tx, ty = _untied_partners(x).astype(float), _untied_partners(y).astype(float)
    numerator, pairs_x, pairs_y = c.sum() / 2, tx.sum() / 2, ty.sum() / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = numerator / np.sqrt(pairs_x * pairs_y)
        left_out = (numerator - c) / np.sqrt((pairs_x - tx) * (pairs_y - ty))
    return float(tau), left_out


def correlate(measure, ratings, *, confidence: float = 0.95) -> Correlation:
    """Kendall's tau-b (jackknife CI) and Pearson's r between ``measure`` and the mean z-scores.

    ``measure``: per dialogue (n,); ``ratings``: annotators x dialogues with NaN. The interval is
    tau +- z_(1+confidence)/2 * SE, SE^2 = (n-1)/n * sum_i (tau_(-i) - mean tau_(-i))^2, clipped to [-1, 1].

    Parameters
    ----------
    measure : array-like, shape (n_dialogues,)
        An automatic measure's score of each dialogue.
    ratings : array-like, shape (n_annotators, n_dialogues)
        Each annotator's rating of each dialogue, NaN where none.
    confidence : float
        The confidence level of tau's interval.

    Examples
    --------
    >>> result = correlate([1, 2, 3, 4], [[1, 2, 4, 3], [1, 3, 2, 4]])  # mean z-scores rise with the measure
    >>> round(result.tau, 4), result.n
    (1.0, 4)
    """
    x = np.asarray(measure, dtype=float)
    y = mean_z_scores(ratings)
    use = np.isfinite(x) & np.isfinite(y)
    x, y = x[use], y[use]
    n = len(x)
    if n < 3:
        raise ValueError("needs at least three dialogues with both a measure and ratings")
    tau, left_out = kendall_tau_b_jackknife(x, y)
    left_out = left_out[np.isfinite(left_out)]
    se = np.sqrt((n - 1) / n * ((left_out - left_out.mean()) ** 2).sum()) if len(left_out) else np.nan
    from scipy import stats  # deferred: scipy.stats costs about a second of every process start

    half = stats.norm.ppf(0.5 + confidence / 2) * se
    low, high = max(-1.0, tau - half), min(1.0, tau + half)
    return Correlation(tau, float(low), float(high), float(stats.pearsonr(x, y).statistic), int(n))
