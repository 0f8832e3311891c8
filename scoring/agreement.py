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
    counts : array-like, shape (n_units, n_categories)
        ``counts[u, c]`` annotators gave category ``c`` to unit ``u``; units with fewer than two are left out.
    on_undefined : {"nan", "raise"}
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

    Parameters
    ----------
    counts : array-like, shape (n_units, n_categories)
        ``counts[u, c]`` annotators gave category ``c`` to unit ``u``; units with fewer than two are left out.
    n_categories : int, optional
        k, when some categories were never given (default: the columns of ``counts``).
    on_undefined : {"nan", "raise"}
        What to do when there are fewer than two categories or no unit has two judgements.

    Examples
    --------
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

    Parameters
    ----------
    counts : array-like, shape (n_units, n_categories)
        ``counts[u, c]`` annotators gave category ``c`` to unit ``u``; units with fewer than two are left out.

    Examples
    --------
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
    counts : array-like, shape (n_units, n_values)
        ``counts[u, v]`` annotators gave value ``v`` to unit ``u``; units with fewer than two are left out.
    level : {"nominal", "ordinal", "interval", "ratio"}
    values : array-like, shape (n_values,), optional
        The numeric value of each column (interval and ratio); default 0, 1, 2, ...
    on_undefined : {"nan", "raise"}
        What to do when no unit has two values or the values do not vary (D_e = 0).

    Examples
    --------
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
    """(counts units x distinct values, the distinct values) from annotators x units with NaN.

    Parameters
    ----------
    ratings : array-like, shape (n_annotators, n_units)
        The value each annotator gave each unit, NaN where none.

    Returns
    -------
    counts : ndarray, shape (n_units, n_distinct)
    values : ndarray, shape (n_distinct,)
        The distinct values, sorted; column ``j`` of ``counts`` counts ``values[j]``.

    Examples
    --------
    >>> counts, values = ratings_to_counts([[1, 2], [1, np.nan]])
    >>> counts.tolist(), values.tolist()
    ([[2, 0], [0, 1]], [1.0, 2.0])
    """
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

    Parameters
    ----------
    ratings : array-like, shape (n_annotators, n_units)
        The value each annotator gave each unit, NaN where none (fast-krippendorff's ``reliability_data``).
    level : {"nominal", "ordinal", "interval", "ratio"}
    on_undefined : {"nan", "raise"}
        What to do when no unit has two values or the values do not vary.

    Examples
    --------
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

    Parameters
    ----------
    ratings : array-like, shape (n_annotators, n_units)
        The value each annotator gave each unit, NaN where none.

    Examples
    --------
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

    Parameters
    ----------
    unit, annotator : array-like of int, shape (n_judgements,)
        Judgement k is ``annotator[k]``'s of unit ``unit[k]`` (indices from 0).
    value : array-like, shape (n_judgements,)
        The numeric value judgement k gave.
    n_annotators : int, optional
        The length of ``per_annotator`` (default: the largest annotator index + 1).

    Examples
    --------
    >>> result = pearson_inter_rater_long([0, 1, 2, 0, 1, 2], [0, 0, 0, 1, 1, 1], [1, 2, 3, 2, 3, 5])
    >>> result.per_annotator.round(3).tolist()
    [0.982, 0.982]
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

    Parameters
    ----------
    ratings : array-like, shape (n_annotators, n_units)
        The value each annotator gave each unit, NaN where none.

    Returns
    -------
    ndarray, shape (n_annotators, n_units)

    Examples
    --------
    >>> annotator_z_scores([[1, 3, np.nan]]).tolist()
    [[-1.0, 1.0, nan]]
    """
    x = np.asarray(ratings, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nanmean(x, axis=1, keepdims=True)
        std = np.nanstd(x, axis=1, keepdims=True)
        return np.where(std > 0, (x - mean) / np.where(std > 0, std, 1), np.nan)


def _one_hot_long(unit, annotator, value, n_units: int, n_annotators: int, n_values: int) -> np.ndarray:
    """annotators x units x values indicator of judgements in long form (one per annotator and unit)."""
    unit, annotator, value = (np.asarray(x, dtype=np.int64) for x in (unit, annotator, value))
    if not (len(unit) == len(annotator) == len(value)):
        raise ValueError("unit, annotator and value must have the same length")
    if len(unit) and (unit.min() < 0 or unit.max() >= n_units or annotator.min() < 0 or value.min() < 0):
        raise ValueError("indices must be non-negative and within n_units / n_annotators / n_values")
    if len(unit) and (annotator.max() >= n_annotators or value.max() >= n_values):
        raise ValueError("annotator or value index out of range")
    x = np.zeros((n_annotators, n_units, n_values))
    x[annotator, unit, value] = 1.0
    if x.sum() != len(unit):
        raise ValueError("an annotator judged a unit twice")
    return x


def _kappa_weights(n_values: int, weights: str | None) -> np.ndarray:
    i, j = np.meshgrid(np.arange(n_values), np.arange(n_values), indexing="ij")
    if weights is None:
        return (i != j).astype(float)
    if weights == "linear":
        return np.abs(i - j).astype(float)
    if weights == "quadratic":
        return ((i - j) ** 2).astype(float)
    raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")


@dataclass(frozen=True)
class KappaMatrix:
    """Pairwise Cohen's kappa: ``kappa[a, b]`` over the ``shared[a, b]`` units both annotators judged."""

    kappa: np.ndarray
    shared: np.ndarray


def cohen_kappa_matrix(
    unit, annotator, value, *, n_annotators: int, n_values: int, weights: str | None = None, min_shared: int = 2
) -> KappaMatrix:
    """Cohen's kappa of every pair of annotators, on the units both judged.

    kappa_ab = 1 - sum_ij w_ij o_ij / sum_ij w_ij e_ij, where o is the pair's confusion matrix over
    their shared units (as proportions), e = outer(row marginals, column marginals) of o, and w the
    disagreement weights: 1 off the diagonal (Cohen 1960), |i - j| (linear) or (i - j)^2 (quadratic,
    Cohen 1968). Unweighted this is (p_o - p_e) / (1 - p_e). NaN where the pair shares fewer than
    ``min_shared`` units or chance disagreement is 0 (both gave one value throughout); 1 on the diagonal.

    Parameters
    ----------
    unit, annotator, value : array-like of int, shape (n_judgements,)
        Long form: judgement k gave value index ``value[k]`` to unit ``unit[k]`` as ``annotator[k]``.
    n_annotators, n_values : int
    weights : {None, "linear", "quadratic"}
    min_shared : int
        The fewest shared units a pair needs for a kappa (NaN below).

    Returns
    -------
    KappaMatrix with ``kappa`` and ``shared``, both (n_annotators, n_annotators).

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological
    Measurement 20(1). Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70(4).
    As ``sklearn.metrics.cohen_kappa_score`` for each pair.

    Examples
    --------
    >>> m = cohen_kappa_matrix([0, 1, 2, 3, 0, 1, 2, 3], [0, 0, 0, 0, 1, 1, 1, 1], [0, 1, 0, 1, 0, 1, 1, 1],
    ...                        n_annotators=2, n_values=2)
    >>> m.kappa.round(4).tolist(), m.shared.tolist()
    ([[1.0, 0.5], [0.5, 1.0]], [[4, 4], [4, 4]])
    """
    unit = np.asarray(unit, dtype=np.int64)
    n_units = int(unit.max()) + 1 if len(unit) else 0
    x = _one_hot_long(unit, annotator, value, n_units, n_annotators, n_values)
    flat = x.transpose(1, 0, 2).reshape(n_units, n_annotators * n_values)
    confusion = (flat.T @ flat).reshape(n_annotators, n_values, n_annotators, n_values).transpose(0, 2, 1, 3)
    shared = confusion.sum(axis=(2, 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = confusion / shared[:, :, None, None]
        expected = observed.sum(axis=3)[:, :, :, None] * observed.sum(axis=2)[:, :, None, :]
        w = _kappa_weights(n_values, weights)
        chance = (w * expected).sum(axis=(2, 3))
        kappa = 1 - (w * observed).sum(axis=(2, 3)) / chance
    defined = (shared >= min_shared) & (chance > 1e-12)
    kappa = np.where(defined, kappa, np.nan)
    np.fill_diagonal(kappa, np.where(np.diag(shared) >= min_shared, 1.0, np.nan))
    return KappaMatrix(kappa, shared.round().astype(np.int64))


def _alpha_from_coincidences(coincidence: np.ndarray, level: str, values: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha of each coincidence matrix in a stack (..., V, V); NaN where undefined."""
    totals = coincidence.sum(axis=-1)
    n = totals.sum(axis=-1)
    v = len(values)
    c, k = np.meshgrid(np.arange(v), np.arange(v), indexing="ij")
    if level == "ordinal":
        cumulative = np.concatenate([np.zeros(totals.shape[:-1] + (1,)), np.cumsum(totals, axis=-1)], axis=-1)
        lo, hi = np.minimum(c, k), np.maximum(c, k)
        between = cumulative[..., hi + 1] - cumulative[..., lo]
        delta = (between - (totals[..., c] + totals[..., k]) / 2) ** 2
    else:
        delta = np.broadcast_to(_distance_matrix(level, values, np.zeros(v)), coincidence.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (coincidence * delta).sum(axis=(-2, -1)) / n
        expected = (totals[..., :, None] * totals[..., None, :] * delta).sum(axis=(-2, -1)) / (n * (n - 1))
        alpha = 1 - observed / expected
    return np.where((n > 1) & (expected > 1e-12), alpha, np.nan)


@dataclass(frozen=True)
class LeaveOneOutAlpha:
    """Krippendorff's alpha of all annotators, and of all but each one.

    ``effect[a] = alpha - without[a]``: positive when annotator a raises agreement, negative when the
    others agree better without them.
    """

    alpha: float
    without: np.ndarray
    effect: np.ndarray


def krippendorff_alpha_leave_one_out(
    unit, annotator, value, *, n_annotators: int, level: str = "nominal", values=None
) -> LeaveOneOutAlpha:
    """Krippendorff's alpha with each annotator left out in turn, from judgements in long form.

    Alpha is 1 - D_o / D_e computed from the coincidence matrix o_ck = sum_u (n_uc n_uk - [c = k] n_uc)
    / (m_u - 1) (``krippendorff_alpha_from_counts``). Leaving annotator a out changes only the units a
    judged: for a's judgement of value v on unit u, n_u becomes n_u - e_v and m_u becomes m_u - 1, so
    o without a = o + sum over a's judgements of [(n_u n_u^T - diag n_u - e_v n_u^T - n_u e_v^T + 2 e_v e_v^T)
    / (m_u - 2) - (n_u n_u^T - diag n_u) / (m_u - 1)] (a term is 0 where its m is below 2). All annotators
    are done at once with sparse sums; the values' distances (and, for ordinal data, the marginals they
    depend on) are those of each reduced coincidence matrix. The result equals recomputing alpha on the
    reliability data without that annotator's row.

    Parameters
    ----------
    unit, annotator, value : array-like of int, shape (n_judgements,)
        Long form, at most one judgement per annotator and unit; ``value`` indexes ``values``.
    n_annotators : int
    level : {"nominal", "ordinal", "interval", "ratio"}
    values : array-like, shape (n_values,), optional
        Numeric value of each value index (interval, ratio); default 0, 1, 2, ... up to the largest index.

    Returns
    -------
    LeaveOneOutAlpha

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. The leave-one-out use of alpha to
    find the coders who lower reliability: Krippendorff (2004), Content Analysis, ch. 11.

    Examples
    --------
    >>> r = krippendorff_alpha_leave_one_out([0, 1, 2, 0, 1, 2, 0, 1, 2], [0, 0, 0, 1, 1, 1, 2, 2, 2],
    ...                                      [0, 1, 1, 0, 1, 1, 1, 0, 0], n_annotators=3)
    >>> round(r.alpha, 4), r.without.round(4).tolist()
    (-0.2, [-0.6667, -0.6667, 1.0])
    """
    from scipy import sparse

    unit, annotator, value = (np.asarray(x, dtype=np.int64) for x in (unit, annotator, value))
    n_values = (int(value.max()) + 1 if len(value) else 1) if values is None else len(values)
    values = np.arange(n_values, dtype=float) if values is None else np.asarray(values, dtype=float)
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    n_units = int(unit.max()) + 1 if len(unit) else 0
    counts = np.bincount(unit * n_values + value, minlength=n_units * n_values).reshape(n_units, n_values)
    counts = counts.astype(float)
    m = counts.sum(axis=1)
    numer = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(n_values)
    with np.errstate(divide="ignore"):
        h = np.where(m >= 2, 1 / (m - 1), 0.0)
        g = np.where(m >= 3, 1 / (m - 2), 0.0)
    coincidence = (numer * h[:, None, None]).sum(axis=0)
    gk, hk = g[unit], h[unit]
    shape = (n_annotators, n_units)
    p = sparse.csr_matrix((gk - hk, (annotator, unit)), shape=shape) @ numer.reshape(n_units, -1)
    t = sparse.csr_matrix((gk, (annotator * n_values + value, unit)), shape=(n_annotators * n_values, n_units))
    t = np.asarray(t @ counts).reshape(n_annotators, n_values, n_values)
    d = np.bincount(annotator * n_values + value, weights=2 * gk, minlength=n_annotators * n_values)
    change = np.asarray(p).reshape(n_annotators, n_values, n_values) - t - t.transpose(0, 2, 1)
    change += d.reshape(n_annotators, n_values)[:, :, None] * np.eye(n_values)
    alpha = float(_alpha_from_coincidences(coincidence, level, values))
    without = _alpha_from_coincidences(coincidence[None] + change, level, values)
    return LeaveOneOutAlpha(alpha, without, alpha - without)
