"""Fleiss' and Randolph's kappa and Krippendorff's alpha from additive sums over units.

Every coefficient here is a function of integer sums over units grouped by their number of labels
``m``: how many units, the labels of each category, and the pairs sum_u n_uc n_uk - [c = k] n_uc.
A unit's labels changing changes these sums by that unit's old and new terms only
(``unit_terms``), so a store of the sums stays exact under any sequence of changes, and the
coefficients cost O(categories^2) per group instead of a pass over every unit.
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
    p_bar = sum(np.trace(pairs) / (m * (m - 1)) for m, (_u, _t, pairs) in arrays.items()) / n_units
    totals = sum(t for _u, t, _p in arrays.values())
    p_c = totals / totals.sum()
    p_e = float((p_c**2).sum())
    if not np.isclose(p_e, 1.0):
        out["fleiss_kappa"] = float((p_bar - p_e) / (1 - p_e))
    if n_values >= 2:
        out["randolph_kappa"] = float((p_bar - 1 / n_values) / (1 - 1 / n_values))
    coincidence = sum(pairs / (m - 1) for m, (_u, _t, pairs) in arrays.items())
    numbers = np.arange(n_values, dtype=float) if values is None else np.asarray(values, dtype=float)
    out["krippendorff_alpha"] = {level: alpha_from_coincidence(coincidence, level, numbers) for level in levels}
    return out
