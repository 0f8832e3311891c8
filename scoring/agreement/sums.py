"""Fleiss' and Randolph's kappa and Krippendorff's alpha from additive sums over units.

Every coefficient here is a function of integer sums over units grouped by their number of labels
``m``: how many units, the labels of each category, and the pairs sum_u n_uc n_uk - [c = k] n_uc.
A unit's labels changing changes these sums by that unit's old and new terms only
(``unit_terms``), so a store of the sums stays exact under any sequence of changes, and the
coefficients cost O(categories^2) per group instead of a pass over every unit.

This module holds the one implementation of the two kappas (``fleiss_kappa_from_sums``,
``randolph_kappa_from_sums``) and alpha's is ``scoring.agreement.alpha.alpha_from_coincidence``: the per-unit
forms (``scoring.agreement.kappa``), the resamples of the intervals (``scoring.agreement.intervals``) and the
live running figures (``coefficients``) compute the same sums their own way and call them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from scoring.agreement.alpha import alpha_from_coincidence
from scoring.checks import label_counts

UNITS = (-1, -1)  # the key of the unit count among a group's terms


def unit_terms(counts) -> dict[tuple[int, int], int]:
    """The terms one unit with these per-category ``counts`` adds to its group (m = sum of counts).

    Keys: ``UNITS`` (1), ``(c, -1)`` (the labels of category c) and ``(c, k)`` (its pairs); zeros left out.

    Examples
    --------
    >>> unit_terms([2, 1])  # two labels of category 0, one of category 1
    {(-1, -1): 1, (0, -1): 2, (0, 0): 2, (0, 1): 2, (1, -1): 1, (1, 0): 2}
    """
    try:  # called per save: scoring.checks.label_counts only names what is wrong (it costs several times more)
        whole = [int(x) for x in counts]
    except (TypeError, ValueError, OverflowError):
        whole = None
    if whole is None or whole != list(counts) or min(whole, default=0) < 0:
        label_counts(counts, ndim=1)  # raises, naming the first entry that is not a whole non-negative count
    counts = whole
    if sum(counts) == 0:
        return {}
    terms = {UNITS: 1}
    for c, n_c in enumerate(counts):
        if n_c:
            terms[(c, -1)] = n_c
            for k, n_k in enumerate(counts):
                pairs = n_c * n_k - (n_c if c == k else 0)
                if pairs:
                    terms[(c, k)] = pairs
    return terms


def sums_arrays(groups: Mapping[int, Mapping[tuple[int, int], int]], n_values: int):
    """Per group m: (units, totals[c], pairs[c, k]) as arrays, from the stored terms."""
    out = {}
    for m, terms in groups.items():
        totals = np.zeros(n_values, dtype=np.int64)
        pairs = np.zeros((n_values, n_values), dtype=np.int64)
        for (c, k), n in terms.items():
            if (c, k) == UNITS:
                continue
            if k == -1:
                totals[c] += n
            else:
                pairs[c, k] += n
        out[m] = (int(terms.get(UNITS, 0)), totals, pairs)
    return out


def unit_agreement(counts) -> np.ndarray:
    """Each unit's agreement P_u = sum_c n_uc (n_uc - 1) / (m_u (m_u - 1)), the terms of the agreement sum.

    >>> unit_agreement([[3, 0], [2, 1]]).round(4).tolist()
    [1.0, 0.3333]
    """
    counts = np.asarray(counts, dtype=float)
    m = counts.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts * (counts - 1)).sum(axis=-1) / (m * (m - 1))


def fleiss_kappa_from_sums(n_units, agreement, totals):
    """Fleiss' kappa from three additive sums: kappa = (P_bar - P_e) / (1 - P_e).

    P_bar = agreement / n_units, where ``agreement`` = sum_u P_u and P_u = sum_c n_uc (n_uc - 1) / (m_u (m_u - 1))
    is the agreement on unit u (m_u its labels, two or more); P_e = sum_c p_c^2 with p_c = t_c / sum_k t_k, the
    share of category c among all the labels ``totals`` (t_c = sum_u n_uc). With the same number of annotators
    per unit this is Fleiss (1971); with varying numbers it is its usual generalisation.

    Parameters
    ----------
    n_units : int or array-like, shape (...)
        The units (with two or more labels) the sums are over.
    agreement : float or array-like, shape (...)
        sum_u P_u over those units.
    totals : array-like, shape (..., n_categories)
        The labels of each category over those units.

    Returns
    -------
    float, or an array of shape (...) for stacked sums (every resample of the intervals at once); NaN where
    there is no unit or P_e = 1 (every label in one category).

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological Bulletin 76(5).

    Examples
    --------
    >>> # units [3, 0], [0, 3], [2, 1]: P_u = 1, 1, 1/3; totals 5, 4 (Fleiss' kappa 0.55)
    >>> round(fleiss_kappa_from_sums(3, 1 + 1 + 1 / 3, [5, 4]), 4)
    0.55
    """
    n_units, agreement = np.asarray(n_units, dtype=float), np.asarray(agreement, dtype=float)
    totals = np.asarray(totals, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_bar = agreement / n_units
        p_e = ((totals / totals.sum(axis=-1, keepdims=True)) ** 2).sum(axis=-1)
        kappa = (p_bar - p_e) / (1 - p_e)
    kappa = np.where((n_units > 0) & ~np.isclose(p_e, 1.0), kappa, np.nan)
    return float(kappa) if kappa.ndim == 0 else kappa


def randolph_kappa_from_sums(n_units, agreement, n_categories: int):
    """Randolph's free-marginal multirater kappa from the sums: kappa_free = (P_bar - 1/k) / (1 - 1/k).

    P_bar = agreement / n_units as in ``fleiss_kappa_from_sums``; chance agreement is 1/k for k categories.

    Parameters
    ----------
    n_units, agreement : float or array-like, shape (...)
        As in ``fleiss_kappa_from_sums``.
    n_categories : int
        k (NaN below two).

    References
    ----------
    Randolph, J. J. (2005). Free-marginal multirater kappa (multirater kappa_free): an alternative to Fleiss'
    fixed-marginal multirater kappa. Joensuu Learning and Instruction Symposium.

    Examples
    --------
    >>> round(randolph_kappa_from_sums(3, 1 + 1 + 1 / 3, 2), 4)
    0.5556
    """
    n_units, agreement = np.asarray(n_units, dtype=float), np.asarray(agreement, dtype=float)
    k = n_categories
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (agreement / n_units - 1 / k) / (1 - 1 / k) if k >= 2 else np.full(n_units.shape, np.nan)
    kappa = np.where(n_units > 0, kappa, np.nan)
    return float(kappa) if kappa.ndim == 0 else kappa


def distribution(groups, n_values: int) -> np.ndarray:
    """Labels per category over every unit (the gold distribution's totals)."""
    arrays = sums_arrays(groups, n_values)
    return sum((totals for _u, totals, _p in arrays.values()), np.zeros(n_values, dtype=np.int64))


def coefficients(groups, n_values: int, *, levels=("nominal",), values=None) -> dict:
    """Fleiss' and Randolph's kappa, alpha at each level and the mean gold distribution, as ``scoring.agreement``
    and ``scoring.gold`` compute them from the units' counts (units with two or more labels), from the sums alone."""
    arrays = {m: a for m, a in sums_arrays(groups, n_values).items() if m >= 2 and a[0] > 0}
    n_units = sum(a[0] for a in arrays.values())
    nan = float("nan")
    out = {"n_units": n_units, "fleiss_kappa": nan, "randolph_kappa": nan, "krippendorff_alpha": {}}
    if n_units == 0:
        out["krippendorff_alpha"] = dict.fromkeys(levels, nan)
        out["mean_distribution"] = None
        return out
    # the mean over those units of their gold distributions n_uc / m_u (``scoring.gold.gold_distribution``)
    out["mean_distribution"] = (sum(t / m for m, (_u, t, _p) in arrays.items()) / n_units).tolist()
    agreement = sum(np.trace(pairs) / (m * (m - 1)) for m, (_u, _t, pairs) in arrays.items())
    totals = sum(t for _u, t, _p in arrays.values())
    out["fleiss_kappa"] = fleiss_kappa_from_sums(n_units, agreement, totals)
    out["randolph_kappa"] = randolph_kappa_from_sums(n_units, agreement, n_values)
    coincidence = sum(pairs / (m - 1) for m, (_u, _t, pairs) in arrays.items())
    numbers = np.arange(n_values, dtype=float) if values is None else np.asarray(values, dtype=float)
    out["krippendorff_alpha"] = {level: alpha_from_coincidence(coincidence, level, numbers) for level in levels}
    return out
