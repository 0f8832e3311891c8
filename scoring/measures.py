"""Comparing an estimated distribution p with a gold distribution p* over L bins.

All functions take arrays with the bins on the last axis; leading axes broadcast, so a whole
collection (units x bins) is scored in one call. Inputs are normalised to sum to one; a row
with a negative entry, a non-finite entry or a zero sum raises ``ValueError`` naming the row.

References
----------
Sakai, T. (2017). Towards automatic evaluation of multi-turn dialogues: a task design that
leverages inherently subjective annotations. EVIA 2017 (``sakai2017_snod_task_design.txt``):
RNSS, JSD, OD/NOD/SNOD.
Zeng, Z., Kato, S., Sakai, T. (2019/2020). DialEval-1 / NTCIR-15: NMD and RSNOD.
Higashinaka et al. (2017), DBDC3; Tsunomori et al. (2020) (``tsunomori2020_breakdown_metrics.txt``): MSE.
"""

from __future__ import annotations

import numpy as np

from scoring.checks import as_distributions


def _row_sum(x: np.ndarray) -> np.ndarray:
    """Sum over the bins; a product with a vector of ones is much faster than a reduction over a short axis."""
    return x @ np.ones(x.shape[-1])


def _pair(p, q) -> tuple[np.ndarray, np.ndarray]:
    p, q = as_distributions(p, "p"), as_distributions(q, "q")
    if p.shape[-1] != q.shape[-1]:
        raise ValueError(f"p has {p.shape[-1]} bins and q has {q.shape[-1]}")
    p, q = np.broadcast_arrays(p, q)
    return p, q


def variational_distance(p, q) -> np.ndarray:
    """V(p, p*) = sum_i |p_i - p*_i| (Sakai 2017, Eq. 1); range [0, 2].

    Parameters
    ----------
    p, q : array-like, shape (..., L)
        Estimated and gold (p*) distributions over L ordered bins, normalised along the last axis; leading
        axes broadcast (one score per row).

    Examples
    --------
    >>> float(variational_distance([1, 0], [0, 1]))
    2.0
    """
    p, q = _pair(p, q)
    return _row_sum(np.abs(p - q))


def rnss(p, q) -> np.ndarray:
    """Root normalised sum of squares, RNSS = sqrt( sum_i (p_i - p*_i)^2 / 2 ) (Sakai 2017, Eq. 3).

    Range [0, 1]. Sakai's Figure 1: gold uniform over 5 bins, X = (.3,.3,.2,.1,.1) gives 0.1414
    and Y = (.4,.2,.2,.1,.1) gives 0.1732.

    Parameters
    ----------
    p, q : array-like, shape (..., L)
        Estimated and gold (p*) distributions over L ordered bins, normalised along the last axis; leading
        axes broadcast (one score per row).

    Examples
    --------
    >>> round(float(rnss([.3, .3, .2, .1, .1], [.2] * 5)), 4)
    0.1414
    """
    p, q = _pair(p, q)
    return np.sqrt(_row_sum((p - q) ** 2) / 2)


def _kl_to_mean(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """KL(a || m) with m = (a + b)/2, written as a log2(2a / (a + b)) so that m never underflows to 0."""
    # 0 log 0 = 0: where a = 0 the ratio is set to 1, whose log is 0; elsewhere a + b >= a > 0.
    ratio = np.divide(2 * a, a + b, out=np.ones_like(a), where=a > 0)
    return _row_sum(a * np.log2(ratio))


def jsd(p, q) -> np.ndarray:
    """Jensen-Shannon divergence, (KL(p||m) + KL(p*||m)) / 2 with m = (p + p*)/2, log base 2.

    0 log 0 = 0; range [0, 1] (Sakai 2017, Eqs. 4-5). Sakai's Figure 1: 0.0390 for X.

    Parameters
    ----------
    p, q : array-like, shape (..., L)
        Estimated and gold (p*) distributions over L ordered bins, normalised along the last axis; leading
        axes broadcast (one score per row).

    Examples
    --------
    >>> round(float(jsd([.3, .3, .2, .1, .1], [.2] * 5)), 4)
    0.039
    """
    p, q = _pair(p, q)
    return (_kl_to_mean(p, q) + _kl_to_mean(q, p)) / 2


def order_aware_divergence(p, q) -> np.ndarray:
    """OD(p, p*) = (1/|B*|) sum_{i in B*} sum_{j != i} |i - j| (p_j - p*_j)^2, B* = {i : p*_i > 0}.

    Sakai 2017, Eq. 7: the squared differences are weighted by their distance from the bins
    where the gold distribution has mass, averaged over those bins only. (The 2018 STC-3
    evaluation script averaged over all L bins; we follow the paper and the DialEval-1 script.)

    Parameters
    ----------
    p, q : array-like, shape (..., L)
        Estimated and gold (p*) distributions over L ordered bins, normalised along the last axis; leading
        axes broadcast (one score per row).

    Examples
    --------
    >>> round(float(order_aware_divergence([0, 1/3, 2/3], [1, 0, 0])), 4)
    1.0
    """
    return _od(*_pair(p, q))


def _od(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    n = p.shape[-1]
    distance = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]).astype(float)  # |i - j|
    per_bin = ((p - q) ** 2) @ distance  # per_bin[..., i] = sum_j |i-j| (p_j - p*_j)^2 (distance is symmetric)
    support = q > 0
    return _row_sum(per_bin * support) / _row_sum(support.astype(float))


def nod(p, q) -> np.ndarray:
    """Normalised order-aware divergence, NOD = OD(p, p*) / (L - 1) (Sakai 2017, Eq. 9).

    Sakai's Figure 2(b): gold (1, 0, 0), estimate (0, 1/3, 2/3): NOD 0.5000; swapped 0.8889.

    Parameters
    ----------
    p, q : array-like, shape (..., L)
        Estimated and gold (p*) distributions over L ordered bins, normalised along the last axis; leading
        axes broadcast (one score per row).

    Examples
    --------
    >>> round(float(nod([0, 1/3, 2/3], [1, 0, 0])), 4), round(float(nod([1, 0, 0], [0, 1/3, 2/3])), 4)
    (0.5, 0.8889)
    """
    p, q = _pair(p, q)
    return _od(p, q) / (p.shape[-1] - 1)


def snod(p, q) -> np.ndarray:
    """Symmetric NOD, SNOD = (OD(p, p*) + OD(p*, p)) / 2 / (L - 1) (Sakai 2017, Eqs. 8, 10).

    Parameters
    ----------
    p, q : array-like, shape (..., L)
        Estimated and gold (p*) distributions over L ordered bins, normalised along the last axis; leading
        axes broadcast (one score per row).

    Examples
    --------
    >>> round(float(snod([0, 1/3, 2/3], [1, 0, 0])), 4)
    0.6944
    """
    p, q = _pair(p, q)
    return (_od(p, q) + _od(q, p)) / 2 / (p.shape[-1] - 1)


def rsnod(p, q) -> np.ndarray:
    """Root SNOD, RSNOD = sqrt(SNOD) (DialEval-1, NTCIR-15 dialogue quality).

    Parameters
    ----------
    p, q : array-like, shape (..., L)
        Estimated and gold (p*) distributions over L ordered bins, normalised along the last axis; leading
        axes broadcast (one score per row).

    Examples
    --------
    >>> round(float(rsnod([0, 1/3, 2/3], [1, 0, 0])), 4)
    0.8333
    """
    return np.sqrt(snod(p, q))


def nmd(p, q) -> np.ndarray:
    """Normalised match distance, NMD = sum_i |cp_i - cp*_i| / (L - 1), cp the cumulative sums.

    The earth mover's distance between ordinal distributions, scaled to [0, 1] (DialEval-1).

    Parameters
    ----------
    p, q : array-like, shape (..., L)
        Estimated and gold (p*) distributions over L ordered bins, normalised along the last axis; leading
        axes broadcast (one score per row).

    Examples
    --------
    >>> float(nmd([1, 0, 0], [0, 0, 1]))
    1.0
    """
    p, q = _pair(p, q)
    return _row_sum(np.abs(np.cumsum(p - q, axis=-1))) / (p.shape[-1] - 1)


def mse(p, q) -> np.ndarray:
    """Mean squared error over the bins, MSE = sum_i (p_i - p*_i)^2 / L (DBDC).

    Parameters
    ----------
    p, q : array-like, shape (..., L)
        Estimated and gold (p*) distributions over L ordered bins, normalised along the last axis; leading
        axes broadcast (one score per row).

    Examples
    --------
    >>> round(float(mse([0.5, 0.5, 0], [1, 0, 0])), 4)
    0.1667
    """
    p, q = _pair(p, q)
    return _row_sum((p - q) ** 2) / p.shape[-1]


def simpson_index(q) -> np.ndarray:
    """w = sum_l p*_l^2, the weight of a unit in the "+w" metrics (Tsunomori et al. 2020, Eq. 1).

    Parameters
    ----------
    q : array-like, shape (..., L)
        Gold distributions p*, normalised along the last axis.

    Examples
    --------
    >>> round(float(simpson_index([1/3, 1/3, 1/3])), 4), float(simpson_index([0, 0, 1]))
    (0.3333, 1.0)
    """
    q = as_distributions(q, "q")
    return _row_sum(q**2)


# name -> (function, symmetric, takes ordinal bins into account)
MEASURES = {
    "rnss": (rnss, True, False),
    "jsd": (jsd, True, False),
    "nod": (nod, False, True),
    "snod": (snod, True, True),
    "rsnod": (rsnod, True, True),
    "nmd": (nmd, True, True),
    "mse": (mse, True, False),
    "variational_distance": (variational_distance, True, False),
}
