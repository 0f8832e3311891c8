"""Inter-annotator agreement from per-unit counts or from a reliability matrix.

Two inputs are used throughout:

* ``counts``: units x categories, ``counts[u, c]`` = how many annotators gave category ``c`` to
  unit ``u`` (the same array the gold distributions come from);
* ``ratings``: a reliability matrix, annotators x units, the numeric value given or NaN.

Units with fewer than two judgements carry no information about agreement and are left out.

References
----------
Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
Randolph, J. J. (2005). Free-marginal multirater kappa (multirater kappa_free).
Krippendorff, K. (2004/2011). Computing Krippendorff's alpha-reliability.
Zeng et al. (2017) (``zeng2017_dch1_uch.txt``, Tables 2-3): Fleiss' kappa, Randolph's kappa,
"2+ agree" and "3 agree" for DCH-1.
Gandhe & Traum (2008) (``gandhe2008_dialogue_coherence_ordering.txt``): Krippendorff's alpha
for interval ratings and Pearson inter-rater r against the mean of the other judges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _pairable(counts) -> np.ndarray:
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2:
        raise ValueError(f"counts must be units x categories, got shape {counts.shape}")
    if (counts < 0).any() or not np.isfinite(counts).all():
        raise ValueError("counts must be finite and non-negative")
    return counts[counts.sum(axis=1) >= 2]


def fleiss_kappa(counts, *, on_undefined: str = "nan") -> float:
    """Fleiss' kappa, kappa = (P_bar - P_e) / (1 - P_e).

    P_i = (sum_c n_ic^2 - n_i) / (n_i (n_i - 1)) is the agreement on unit i, P_bar their mean,
    p_c = sum_i n_ic / sum_i n_i and P_e = sum_c p_c^2. With the same number of annotators per
    unit this is Fleiss (1971); with varying numbers it is its usual generalisation.

    Parameters
    ----------
    counts : array (units, categories)
    on_undefined : "nan" or "raise"
        What to do when P_e = 1 (every judgement in one category) or no unit has two judgements.

    Examples
    --------
    >>> round(fleiss_kappa([[3, 0], [0, 3], [2, 1]]), 4)
    0.55
    """
    counts = _pairable(counts)
    n = counts.sum(axis=1)
    if len(counts) == 0:
        return _undefined(on_undefined, "no unit has two or more judgements")
    p_bar = ((counts * (counts - 1)).sum(axis=1) / (n * (n - 1))).mean()
    p_c = counts.sum(axis=0) / n.sum()
    p_e = (p_c**2).sum()
    if np.isclose(p_e, 1.0):
        return _undefined(on_undefined, "every judgement is in one category (chance agreement is 1)")
    return float((p_bar - p_e) / (1 - p_e))


def randolph_kappa(counts, *, n_categories: int | None = None, on_undefined: str = "nan") -> float:
    """Randolph's free-marginal multirater kappa, kappa_free = (P_bar - 1/k) / (1 - 1/k).

    P_bar as in Fleiss' kappa; chance agreement is 1/k for k categories (the columns of
    ``counts`` unless ``n_categories`` says otherwise).

    >>> round(randolph_kappa([[3, 0], [0, 3], [2, 1]]), 4)
    0.5556
    >>> round(randolph_kappa([[3, 0, 0], [0, 3, 0], [2, 1, 0]]), 4)
    0.6667
    """
    counts = _pairable(counts)
    k = counts.shape[1] if n_categories is None else n_categories
    if len(counts) == 0 or k < 2:
        return _undefined(on_undefined, "needs two or more categories and a unit with two judgements")
    n = counts.sum(axis=1)
    p_bar = ((counts * (counts - 1)).sum(axis=1) / (n * (n - 1))).mean()
    return float((p_bar - 1 / k) / (1 - 1 / k))


@dataclass(frozen=True)
class AgreementShares:
    """Share of units (with two or more judgements) on which at least two / all annotators agree."""

    agree_2plus: float
    agree_all: float
    n_units: int


def agreement_shares(counts) -> AgreementShares:
    """The "2+ agree" and "all agree" proportions of Zeng et al. (2017, Table 2).

    >>> agreement_shares([[3, 0], [2, 1], [1, 1]])
    AgreementShares(agree_2plus=0.6666666666666666, agree_all=0.3333333333333333, n_units=3)
    """
    counts = _pairable(counts)
    if len(counts) == 0:
        return AgreementShares(float("nan"), float("nan"), 0)
    top = counts.max(axis=1)
    return AgreementShares(float((top >= 2).mean()), float((top == counts.sum(axis=1)).mean()), len(counts))


def _undefined(on_undefined: str, why: str) -> float:
    if on_undefined == "raise":
        raise ValueError(f"undefined: {why}")
    if on_undefined != "nan":
        raise ValueError(f"on_undefined must be 'nan' or 'raise', got {on_undefined!r}")
    return float("nan")


def _distance_matrix(level: str, values: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """delta^2_ck for Krippendorff's alpha (Krippendorff 2011, section E)."""
    c, k = np.meshgrid(np.arange(len(values)), np.arange(len(values)), indexing="ij")
    if level == "nominal":
        return (c != k).astype(float)
    if level == "ordinal":
        cumulative = np.concatenate([[0.0], np.cumsum(totals)])
        lo, hi = np.minimum(c, k), np.maximum(c, k)
        between = cumulative[hi + 1] - cumulative[lo]  # sum of n_g for g from c to k
        return (between - (totals[c] + totals[k]) / 2) ** 2
    if level == "interval":
        return (values[c] - values[k]) ** 2
    if level == "ratio":
        total = values[c] + values[k]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total == 0, 0.0, ((values[c] - values[k]) / np.where(total == 0, 1, total)) ** 2)
    raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")


def krippendorff_alpha_from_counts(counts, level: str = "nominal", values=None, *, on_undefined: str = "nan") -> float:
    """Krippendorff's alpha, 1 - D_o / D_e, from per-unit value counts.

    The coincidence matrix o_ck = sum_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1) over units with
    m_u >= 2 values; n_c = sum_k o_ck, n = sum_c n_c; D_o = sum o_ck delta^2_ck / n and
    D_e = sum n_c n_k delta^2_ck / (n (n - 1)).

    Parameters
    ----------
    counts : array (units, values)
    level : "nominal", "ordinal", "interval" or "ratio"
    values : array (values,), optional
        The numeric value of each column (interval and ratio); default 0, 1, 2, ...

    >>> round(krippendorff_alpha_from_counts([[2, 0], [0, 2], [1, 1]]), 4)
    0.4444
    """
    counts = _pairable(counts)
    n_values = counts.shape[1]
    values = np.arange(n_values, dtype=float) if values is None else np.asarray(values, dtype=float)
    if len(counts) == 0:
        return _undefined(on_undefined, "no unit has two or more values")
    m = counts.sum(axis=1)
    weighted = counts / (m - 1)[:, None]
    coincidence = counts.T @ weighted - np.diag(weighted.sum(axis=0))
    totals = coincidence.sum(axis=1)
    n = totals.sum()
    delta = _distance_matrix(level, values, totals)
    observed = (coincidence * delta).sum() / n
    expected = (np.outer(totals, totals) * delta).sum() / (n * (n - 1))
    if expected == 0:
        return _undefined(on_undefined, "no variation in the values (expected disagreement is 0)")
    return float(1 - observed / expected)


def ratings_to_counts(ratings) -> tuple[np.ndarray, np.ndarray]:
    """(counts units x distinct values, the distinct values) from annotators x units with NaN."""
    ratings = np.asarray(ratings, dtype=float)
    if ratings.ndim != 2:
        raise ValueError(f"ratings must be annotators x units, got shape {ratings.shape}")
    present = ~np.isnan(ratings)
    values, index = np.unique(ratings[present], return_inverse=True)
    unit = np.nonzero(present)[1]
    flat = np.bincount(unit * len(values) + index, minlength=ratings.shape[1] * len(values))
    return flat.reshape(ratings.shape[1], len(values)), values


def krippendorff_alpha(ratings, level: str = "nominal", *, on_undefined: str = "nan") -> float:
    """Krippendorff's alpha from a reliability matrix (annotators x units, NaN for missing).

    >>> round(krippendorff_alpha([[1, 2, 3, 3], [1, 2, 3, 1], [np.nan, 2, 3, 3]], "interval"), 4)
    0.5238
    """
    counts, values = ratings_to_counts(ratings)
    return krippendorff_alpha_from_counts(counts, level, values, on_undefined=on_undefined)


@dataclass(frozen=True)
class InterRaterCorrelation:
    """Pearson r of each annotator against the mean of the others on the same units."""

    mean: float
    std: float
    per_annotator: np.ndarray


def pearson_inter_rater(ratings) -> InterRaterCorrelation:
    """Gandhe & Traum (2008): "We correlate the ratings given by each judge with the average
    ratings given by the judges who were assigned the same set" and report the mean and
    standard deviation of those correlations.

    For annotator a, over the units a rated that at least one other annotator rated:
    r_a = pearson(x_a, mean of the others). NaN where undefined (fewer than two such units or
    no variation). ``std`` is the sample standard deviation (ddof = 1) over defined r_a.

    >>> result = pearson_inter_rater([[1, 2, 3, 4], [2, 2, 4, 5], [1, 3, 3, 5]])
    >>> [round(float(r), 3) for r in result.per_annotator]
    [0.994, 0.885, 0.889]
    """
    x = np.asarray(ratings, dtype=float)
    annotator, unit = np.nonzero(~np.isnan(x))
    return pearson_inter_rater_long(unit, annotator, x[annotator, unit], n_annotators=x.shape[0])


def pearson_inter_rater_long(unit, annotator, value, *, n_annotators: int | None = None) -> InterRaterCorrelation:
    """``pearson_inter_rater`` for judgements in long form (one entry per judgement).

    Memory grows with the number of judgements, not annotators x units, so collections with
    thousands of annotators (DBDC) are fine.
    """
    unit, annotator = np.asarray(unit, dtype=np.int64), np.asarray(annotator, dtype=np.int64)
    value = np.asarray(value, dtype=float)
    n_annotators = int(annotator.max()) + 1 if n_annotators is None else n_annotators
    n_units = int(unit.max()) + 1 if len(unit) else 0
    unit_total = np.bincount(unit, weights=value, minlength=n_units)
    unit_count = np.bincount(unit, minlength=n_units)
    others_count = unit_count[unit] - 1
    use = others_count > 0
    a, u, x = annotator[use], unit[use], value[use]
    y = (unit_total[u] - x) / others_count[use]
    n = np.bincount(a, minlength=n_annotators).astype(float)
    sx, sy = np.bincount(a, x, n_annotators), np.bincount(a, y, n_annotators)
    sxx, syy, sxy = (
        np.bincount(a, x * x, n_annotators),
        np.bincount(a, y * y, n_annotators),
        np.bincount(a, x * y, n_annotators),
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = sxy - sx * sy / n
        var_x, var_y = sxx - sx**2 / n, syy - sy**2 / n
        r = cov / np.sqrt(var_x * var_y)
    tiny = 1e-12 * np.maximum(1.0, sxx)
    r = np.where((n >= 2) & (var_x > tiny) & (var_y > 1e-12 * np.maximum(1.0, syy)), np.clip(r, -1, 1), np.nan)
    defined = r[np.isfinite(r)]
    std = float(defined.std(ddof=1)) if len(defined) > 1 else float("nan")
    return InterRaterCorrelation(float(defined.mean()) if len(defined) else float("nan"), std, r)


def annotator_z_scores(ratings) -> np.ndarray:
    """Each annotator's ratings standardised by their own mean and standard deviation (ddof = 0).

    Removes an annotator's scoring tendency before ratings are averaged (Zeng et al. 2017,
    sec. 5). Missing stays NaN; an annotator with no variation gets NaN.

    >>> annotator_z_scores([[1, 3, np.nan]]).tolist()
    [[-1.0, 1.0, nan]]
    """
    x = np.asarray(ratings, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nanmean(x, axis=1, keepdims=True)
        std = np.nanstd(x, axis=1, keepdims=True)
        return np.where(std > 0, (x - mean) / np.where(std > 0, std, 1), np.nan)
