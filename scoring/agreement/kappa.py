"""Kappa coefficients from per-unit counts: Fleiss', Randolph's free-marginal kappa, the "2+ agree" and
"3 agree" shares (Zeng et al. 2017), and Cohen's kappa between every pair of annotators."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.agreement._common import _pairable, _undefined
from scoring.agreement.sums import fleiss_kappa_from_sums, randolph_kappa_from_sums, unit_agreement


def fleiss_kappa(counts, *, on_undefined: str = "nan") -> float:
    """Fleiss' kappa, kappa = (P_bar - P_e) / (1 - P_e), from per-unit counts.

    P_i = (sum_c n_ic^2 - n_i) / (n_i (n_i - 1)) is the agreement on unit i, P_bar their mean,
    p_c = sum_i n_ic / sum_i n_i and P_e = sum_c p_c^2. With the same number of annotators per
    unit this is Fleiss (1971); with varying numbers it is its usual generalisation. The units' counts give
    the sums of ``scoring.agreement.sums.fleiss_kappa_from_sums``, the one implementation, which computes it.

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
    if len(counts) == 0:
        return _undefined(on_undefined, "no unit has two or more judgements")
    kappa = fleiss_kappa_from_sums(len(counts), unit_agreement(counts).sum(), counts.sum(axis=0))
    if np.isnan(kappa):
        return _undefined(on_undefined, "every judgement is in one category (chance agreement is 1)")
    return kappa


def randolph_kappa(counts, *, n_categories: int | None = None, on_undefined: str = "nan") -> float:
    """Randolph's free-marginal multirater kappa, kappa_free = (P_bar - 1/k) / (1 - 1/k).

    P_bar as in Fleiss' kappa; chance agreement is 1/k for k categories (the columns of
    ``counts`` unless ``n_categories`` says otherwise). Computed by
    ``scoring.agreement.sums.randolph_kappa_from_sums`` from the units' sums.

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
    return randolph_kappa_from_sums(len(counts), unit_agreement(counts).sum(), k)


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
    kappa = cohen_kappa_of_tables(confusion, _kappa_weights(n_values, weights))
    kappa = np.where(shared >= min_shared, kappa, np.nan)
    np.fill_diagonal(kappa, np.where(np.diag(shared) >= min_shared, 1.0, np.nan))
    return KappaMatrix(kappa, shared.round().astype(np.int64))


def cohen_kappa_of_tables(tables, weights: np.ndarray) -> np.ndarray:
    """Cohen's kappa of each confusion table (counts) in a stack (..., V, V); NaN where chance disagreement is 0.

    kappa = 1 - N sum_ij w_ij o_ij / sum_ij w_ij r_i c_j, with o the counts, r and c their row and column sums,
    N their total and w the disagreement weights (``cohen_kappa_matrix``): the disagreement observed over that
    expected from the margins (Cohen 1960, 1968). The one implementation of Cohen's kappa: the pairs of
    annotators, the resamples of its intervals and the judges' tables call it.

    Parameters
    ----------
    tables : array-like, shape (..., n_values, n_values)
        Confusion counts: ``tables[..., i, j]`` units the first rater put in ``i`` and the second in ``j``.
    weights : ndarray, shape (n_values, n_values)
        Disagreement weights w_ij (0 on the diagonal).

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> float(cohen_kappa_of_tables([[2, 0], [1, 1]], _kappa_weights(2, None)).round(4))
    0.5
    """
    cells = np.asarray(tables, dtype=float)
    v = cells.shape[-1]
    rows, columns = cells.sum(axis=-1), cells.sum(axis=-2)
    total = rows.sum(axis=-1)
    observed = cells.reshape(*cells.shape[:-2], v * v) @ weights.reshape(-1)
    chance = ((rows @ weights) * columns).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = 1 - total * observed / chance
    return np.where(chance > 1e-12 * np.maximum(total, 1) ** 2, kappa, np.nan)
