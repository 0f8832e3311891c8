"""Krippendorff's alpha at each level of measurement, from counts or a reliability matrix, and left out
one annotator at a time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.agreement._common import _pairable, _undefined

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _distance_matrix(level: str, values: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """delta^2_ck for Krippendorff's alpha (Krippendorff 2011, section E), shape (..., V, V).

    ``totals`` (..., V) are the values' marginals n_c, on which the ordinal metric depends (a stack of
    coincidence matrices has its own each); the other levels use only ``values``."""
    v = len(values)
    c, k = np.meshgrid(np.arange(v), np.arange(v), indexing="ij")
    if level == "nominal":
        return (c != k).astype(float)
    if level == "ordinal":
        totals = np.asarray(totals, dtype=float)
        cumulative = np.concatenate([np.zeros(totals.shape[:-1] + (1,)), np.cumsum(totals, axis=-1)], axis=-1)
        lo, hi = np.minimum(c, k), np.maximum(c, k)
        between = cumulative[..., hi + 1] - cumulative[..., lo]  # sum of n_g for g from c to k
        return (between - (totals[..., c] + totals[..., k]) / 2) ** 2
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
    return alpha_from_coincidence(coincidence, level, values, on_undefined=on_undefined)


def alpha_from_coincidence(coincidence, level: str, values, *, on_undefined: str = "nan"):
    """Krippendorff's alpha from the coincidence matrix o_ck (``krippendorff_alpha_from_counts``) and the
    columns' numbers ``values``: kept additively, the matrix gives alpha without a pass over the units.

    alpha = 1 - D_o / D_e with D_o = sum_ck o_ck delta_ck / n and D_e = sum_ck n_c n_k delta_ck / (n (n - 1)),
    n_c = sum_k o_ck and n = sum_c n_c (Krippendorff 2011). The one implementation of alpha: the per-unit form,
    the live figures' sums, the resamples of its interval and the leave-one-out matrices all call it.

    Parameters
    ----------
    coincidence : array-like, shape (..., n_values, n_values)
        o_ck: sum over units of n_uc n_uk - [c = k] n_uc, divided by m_u - 1; a stack of them gives one alpha each.
    level : {"nominal", "ordinal", "interval", "ratio"}
    values : array-like, shape (n_values,)
        The number of each column (interval distances); ranks suffice for nominal and ordinal.
    on_undefined : str
        "nan" (default) or "raise" where alpha is undefined (a stack always gives NaN there).

    Returns
    -------
    float, or an array of shape (...) for a stack.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication.

    Examples
    --------
    >>> round(alpha_from_coincidence([[4, 1], [1, 2]], "nominal", [0, 1]), 4)
    0.5333
    """
    coincidence = np.asarray(coincidence, dtype=float)
    totals = coincidence.sum(axis=-1)
    n = totals.sum(axis=-1)
    delta = _distance_matrix(level, np.asarray(values, dtype=float), totals)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (coincidence * delta).sum(axis=(-2, -1)) / n
        expected = (totals[..., :, None] * totals[..., None, :] * delta).sum(axis=(-2, -1)) / (n * (n - 1))
        alpha = np.where((n > 1) & (expected > 1e-12), 1 - observed / expected, np.nan)
    if coincidence.ndim > 2:
        return alpha
    if np.isnan(alpha):
        why = "no unit has two or more values" if coincidence.sum() == 0 else "no variation in the values"
        return _undefined(on_undefined, f"{why} (expected disagreement is 0)")
    return float(alpha)


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
    alpha = float(alpha_from_coincidence(coincidence, level, values))
    without = alpha_from_coincidence(coincidence[None] + change, level, values)
    return LeaveOneOutAlpha(alpha, without, alpha - without)
