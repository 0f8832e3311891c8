"""Intervals for the agreement coefficients: the bootstrap over units, or the jackknife where units are few.

Every coefficient here is a function of the per-unit counts (units x categories: how many annotators gave
each category to each unit), so a resample of units is a vector of weights, one per unit: how often the unit
was drawn. Units with the same counts are interchangeable, so the weights are kept per distinct count vector
(a *pattern*): drawing ``n`` units with replacement from ``n`` units of which ``f_g`` have pattern ``g`` gives
pattern weights ``w ~ Multinomial(n, f / n)``, exactly the distribution of the unit bootstrap, drawn for all
``B`` resamples at once (``B x patterns``, a few hundred patterns even for 18,000 units of 19 annotators).
Each coefficient is then computed for the whole stack of resamples with matrix products:

* Krippendorff's alpha: each pattern's coincidences ``o_g = (n_g n_g^T - diag n_g) / (m_g - 1)``; a
  resample's coincidence matrix is ``sum_g w_g o_g`` (one product ``W @ O``), and alpha follows at each level
  of measurement with the resample's own marginals (the ordinal metric depends on them);
* Fleiss' and Randolph's kappa: ``P_bar = sum_g w_g P_g / sum_g w_g`` and the category shares
  ``p_c = sum_g w_g n_gc / sum_g w_g m_g``;
* Cohen's kappa of a pair of annotators: the units they share, one pattern per cell of their confusion matrix.

The interval is the percentile interval of the ``B`` bootstrap replicates (Efron 1979; Efron & Tibshirani
1993, ch. 13): the ``(1 - c) / 2`` and ``(1 + c) / 2`` quantiles. Hayes & Krippendorff (2007) recommend
reporting alpha with such a bootstrap distribution; their KALPHA macro resamples pairs of values from the
coincidence matrix, whereas this resamples whole units (the cluster bootstrap), which keeps the values of a
unit together and so respects their dependence; both give the interval of alpha over the units' sampling.
Replicates in which a coefficient is undefined (every resampled value in one category) are left out.

With fewer than ``JACKKNIFE_BELOW`` units the bootstrap distribution is too coarse, and the jackknife is
used instead (Efron 1982; Efron & Stein 1981): leaving out each unit in turn gives ``theta_(i)``, the
standard error is ``se = sqrt((n - 1) / n * sum_i (theta_(i) - theta_(.))^2)`` and the interval is
``theta +- t_{n-1, (1 + c) / 2} se``, its upper end at most 1. Below ``JACKKNIFE_MIN`` units no interval is
given at all (the jackknife of two or three units spans several times the coefficient's range, which reads
as a finding rather than as "too few units"). The method used is said with every interval.

The random draws come from a seed derived from a key (``seed_from("criterion")``), so recomputing the same
judgements gives the same intervals, and two criteria do not share their draws.

References
----------
Efron, B. (1979). Bootstrap methods: another look at the jackknife. The Annals of Statistics 7(1), 1-26.
Efron, B. (1982). The Jackknife, the Bootstrap and Other Resampling Plans. SIAM.
Efron, B., & Stein, C. (1981). The jackknife estimate of variance. The Annals of Statistics 9(3), 586-596.
Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability measure for coding
data. Communication Methods and Measures 1(1), 77-89.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from scoring.agreement._common import _pairable
from scoring.agreement.alpha import alpha_from_coincidence
from scoring.agreement.kappa import _kappa_weights, cohen_kappa_of_tables
from scoring.agreement.sums import fleiss_kappa_from_sums, randolph_kappa_from_sums, unit_agreement

RESAMPLES = 1000
CONFIDENCE = 0.95
JACKKNIFE_BELOW = 30  # units (or, for Cohen's kappa, units a pair shares) below which the jackknife is used
JACKKNIFE_MIN = 5  # units below which no interval is given (undefined, shown as "–")
BOOTSTRAP, JACKKNIFE = "bootstrap", "jackknife"


def seed_from(key: str) -> int:
    """A seed for the draws of one figure, derived from its key: the same key, the same draws.

    >>> seed_from("breakdown") == seed_from("breakdown"), seed_from("breakdown") == seed_from("A-score")
    (True, False)
    """
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "little")


@dataclass(frozen=True)
class Interval:
    """A confidence interval and how it was obtained (``resamples``: bootstrap draws or jackknife units)."""

    low: float
    high: float
    method: str
    resamples: int
    confidence: float = CONFIDENCE

    def as_dict(self) -> dict:
        """The payload's form: ``{"ci": [low, high], "ci_method": ..., "resamples": ...}``."""
        return {"ci": [self.low, self.high], "ci_method": self.method, "resamples": self.resamples}


@dataclass(frozen=True)
class UnitResamples:
    """Resamples of units as weights on the distinct patterns of counts.

    ``patterns[g]`` is a distinct row of counts and ``multiplicity[g]`` how many units have it;
    ``weights[r, g]`` how many units of pattern ``g`` resample ``r`` holds. For the jackknife, resample ``g``
    leaves out one unit of pattern ``g`` and stands for ``multiplicity[g]`` leave-one-out replicates.
    ``np.repeat(patterns, weights[r], axis=0)`` is resample ``r`` as counts (units x categories).
    """

    patterns: np.ndarray
    multiplicity: np.ndarray
    weights: np.ndarray
    method: str

    @property
    def n_units(self) -> int:
        return int(self.multiplicity.sum())

    @property
    def resamples(self) -> int:
        """Bootstrap draws, or leave-one-out replicates (the units) for the jackknife."""
        return len(self.weights) if self.method == BOOTSTRAP else self.n_units

    def counts(self, r: int) -> np.ndarray:
        """Resample ``r`` as counts, units x categories (for checks against other implementations)."""
        return np.repeat(self.patterns, self.weights[r], axis=0)


def unit_resamples(
    counts, *, seed: int, resamples: int = RESAMPLES, jackknife_below: int = JACKKNIFE_BELOW
) -> UnitResamples:
    """Resamples of the pairable units (two or more values) of ``counts``: bootstrap, or jackknife if few.

    Examples
    --------
    >>> r = unit_resamples([[2, 0], [2, 0], [1, 1]], seed=1)
    >>> r.method, r.patterns.astype(int).tolist(), r.multiplicity.tolist(), r.weights.tolist()
    ('jackknife', [[1, 1], [2, 0]], [1, 2], [[0, 2], [1, 1]])
    >>> big = unit_resamples([[2, 0]] * 20 + [[1, 1]] * 20, seed=1, resamples=5)
    >>> big.method, big.weights.shape, big.weights.sum(axis=1).tolist()
    ('bootstrap', (5, 2), [40, 40, 40, 40, 40])
    """
    pairable = _pairable(counts)
    if len(pairable) == 0:
        patterns, multiplicity = np.zeros((0, np.shape(counts)[1])), np.zeros(0, dtype=np.int64)
    else:
        patterns, multiplicity = np.unique(pairable, axis=0, return_counts=True)
    return _resample_patterns(patterns, multiplicity, seed=seed, resamples=resamples, jackknife_below=jackknife_below)


def _resample_patterns(patterns, multiplicity, *, seed, resamples, jackknife_below) -> UnitResamples:
    n = int(multiplicity.sum())
    if n < jackknife_below:
        weights = multiplicity[None, :] - np.eye(len(multiplicity), dtype=np.int64)
        return UnitResamples(patterns, multiplicity, weights, JACKKNIFE)
    rng = np.random.default_rng(seed)
    return UnitResamples(patterns, multiplicity, _bootstrap_weights(rng, multiplicity, resamples), BOOTSTRAP)


def _bootstrap_weights(rng: np.random.Generator, multiplicity: np.ndarray, resamples: int) -> np.ndarray:
    """``resamples`` x patterns: how many units of each pattern a draw of n units with replacement holds.

    Many patterns for few units (19 annotators' ratings: nearly every unit its own pattern): draw the units
    themselves (n integers per resample, in blocks) and count them per pattern; few patterns for many units
    (a pair's confusion cells): one multinomial draw per resample (a binomial per pattern). The same
    distribution either way; the cheaper is chosen (a binomial costs about 30 integer draws)."""
    n, g = int(multiplicity.sum()), len(multiplicity)
    if n > 30 * g:
        return rng.multinomial(n, multiplicity / n, size=resamples)
    pattern_of_unit = np.repeat(np.arange(g), multiplicity)
    weights = np.empty((resamples, g), dtype=np.int64)
    block = max(1, 2_000_000 // n)
    for start in range(0, resamples, block):
        rows = min(block, resamples - start)
        drawn = pattern_of_unit[rng.integers(0, n, size=(rows, n))] + g * np.arange(rows)[:, None]
        weights[start : start + rows] = np.bincount(drawn.ravel(), minlength=rows * g).reshape(rows, g)
    return weights


def interval_from_replicates(
    estimate: float, replicates, resamples: UnitResamples, *, confidence: float = CONFIDENCE
) -> Interval:
    """The interval of ``estimate`` from its value in each resample (percentile, or jackknife t interval).

    Examples
    --------
    >>> r = unit_resamples([[2, 0], [2, 0], [1, 1], [0, 2], [2, 0]], seed=1)
    >>> i = interval_from_replicates(0.5, [0.2, 0.6, 0.5], r)  # the three distinct units left out in turn
    >>> i.method, i.resamples, round(i.low, 4), i.high
    ('jackknife', 5, -0.2532, 1.0)
    >>> few = interval_from_replicates(0.5, [0.0, 1.0], unit_resamples([[2, 0], [2, 0], [1, 1]], seed=1))
    >>> few.method, bool(np.isnan(few.low))  # fewer than JACKKNIFE_MIN units: no interval
    ('jackknife', True)
    """
    replicates = np.asarray(replicates, dtype=float)
    if not np.isfinite(estimate):
        return Interval(float("nan"), float("nan"), resamples.method, resamples.resamples, confidence)
    if resamples.method == BOOTSTRAP:
        defined = replicates[np.isfinite(replicates)]
        if len(defined) == 0:
            return Interval(float("nan"), float("nan"), BOOTSTRAP, resamples.resamples, confidence)
        low, high = np.quantile(defined, [(1 - confidence) / 2, (1 + confidence) / 2])
        return Interval(float(low), float(high), BOOTSTRAP, resamples.resamples, confidence)
    from scipy import stats

    n = resamples.n_units
    weight = resamples.multiplicity.astype(float)
    defined = np.isfinite(replicates)
    if n < JACKKNIFE_MIN or not defined.all():
        return Interval(float("nan"), float("nan"), JACKKNIFE, n, confidence)
    mean = (weight * replicates).sum() / n
    se = np.sqrt((n - 1) / n * (weight * (replicates - mean) ** 2).sum())
    half = stats.t.ppf((1 + confidence) / 2, n - 1) * se
    return Interval(float(estimate - half), float(min(estimate + half, 1.0)), JACKKNIFE, n, confidence)


def coincidences(patterns) -> np.ndarray:
    """Each unit's (pattern's) coincidences (n n^T - diag n) / (m - 1), shape (units, V, V).

    >>> coincidences([[2, 1]]).tolist()
    [[[1.0, 1.0], [1.0, 0.0]]]
    """
    p = np.asarray(patterns, dtype=float)
    m = p.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        h = np.where(m >= 2, 1 / (m - 1), 0.0)
    return (p[:, :, None] * p[:, None, :] - p[:, :, None] * np.eye(p.shape[1])) * h[:, None, None]


def alpha_replicates(resamples: UnitResamples, level: str, values=None) -> np.ndarray:
    """Krippendorff's alpha of every resample, from the stacked coincidence matrices ``W @ O``."""
    v = resamples.patterns.shape[1]
    values = np.arange(v, dtype=float) if values is None else np.asarray(values, dtype=float)
    o = coincidences(resamples.patterns).reshape(len(resamples.patterns), v * v)
    stack = (resamples.weights.astype(float) @ o).reshape(-1, v, v)
    return alpha_from_coincidence(stack, level, values)


def fleiss_replicates(resamples: UnitResamples) -> np.ndarray:
    """Fleiss' kappa of every resample: its sums (units, agreement, category totals) weighted over patterns."""
    w = resamples.weights.astype(float)
    return np.atleast_1d(
        fleiss_kappa_from_sums(w.sum(axis=1), w @ unit_agreement(resamples.patterns), w @ resamples.patterns)
    )


def randolph_replicates(resamples: UnitResamples, *, n_categories: int | None = None) -> np.ndarray:
    """Randolph's free-marginal kappa of every resample, (P_bar - 1/k) / (1 - 1/k), from its sums."""
    k = resamples.patterns.shape[1] if n_categories is None else n_categories
    w = resamples.weights.astype(float)
    return np.atleast_1d(randolph_kappa_from_sums(w.sum(axis=1), w @ unit_agreement(resamples.patterns), k))


def _estimate(replicate_fn, resamples: UnitResamples) -> float:
    """The coefficient on all units: the replicate function applied to the observed weights."""
    whole = UnitResamples(resamples.patterns, resamples.multiplicity, resamples.multiplicity[None, :], BOOTSTRAP)
    return float(replicate_fn(whole)[0]) if len(resamples.patterns) else float("nan")


def krippendorff_alpha_interval(
    counts, level: str = "nominal", values=None, *, seed: int, resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE, jackknife_below: int = JACKKNIFE_BELOW,
) -> tuple[float, Interval]:  # fmt: skip
    """Krippendorff's alpha and its interval over units (bootstrap, Hayes & Krippendorff 2007; or jackknife).

    Alpha = 1 - D_o / D_e from the coincidence matrix sum_u o_u (``krippendorff_alpha_from_counts``);
    each resample's alpha uses its own coincidence matrix sum_g w_g o_g.

    Examples
    --------
    >>> alpha, ci = krippendorff_alpha_interval([[3, 0], [0, 3], [2, 1], [3, 0], [0, 3], [3, 0]], seed=seed_from("x"))
    >>> round(alpha, 4), ci.method, ci.resamples, [round(x, 4) for x in (ci.low, ci.high)]
    (0.7792, 'jackknife', 6, [0.1599, 1.0])
    """
    r = unit_resamples(counts, seed=seed, resamples=resamples, jackknife_below=jackknife_below)
    estimate = _estimate(lambda x: alpha_replicates(x, level, values), r)
    return estimate, interval_from_replicates(estimate, alpha_replicates(r, level, values), r, confidence=confidence)


def fleiss_kappa_interval(
    counts, *, seed: int, resamples: int = RESAMPLES, confidence: float = CONFIDENCE,
    jackknife_below: int = JACKKNIFE_BELOW,
) -> tuple[float, Interval]:  # fmt: skip
    """Fleiss' kappa and its interval over units (bootstrap over units, or jackknife when units are few).

    Examples
    --------
    >>> kappa, ci = fleiss_kappa_interval([[3, 0], [0, 3], [2, 1]] * 20, seed=seed_from("x"), resamples=200)
    >>> round(kappa, 4), ci.method, ci.low < kappa < ci.high
    (0.55, 'bootstrap', True)
    """
    r = unit_resamples(counts, seed=seed, resamples=resamples, jackknife_below=jackknife_below)
    estimate = _estimate(fleiss_replicates, r)
    return estimate, interval_from_replicates(estimate, fleiss_replicates(r), r, confidence=confidence)


def randolph_kappa_interval(
    counts, *, seed: int, n_categories: int | None = None, resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE, jackknife_below: int = JACKKNIFE_BELOW,
) -> tuple[float, Interval]:  # fmt: skip
    """Randolph's free-marginal kappa and its interval over units.

    Examples
    --------
    >>> kappa, ci = randolph_kappa_interval([[3, 0], [0, 3], [2, 1]] * 20, seed=seed_from("x"), resamples=200)
    >>> round(kappa, 4), ci.method
    (0.5556, 'bootstrap')
    """
    r = unit_resamples(counts, seed=seed, resamples=resamples, jackknife_below=jackknife_below)
    fn = lambda x: randolph_replicates(x, n_categories=n_categories)
    estimate = _estimate(fn, r)
    return estimate, interval_from_replicates(estimate, fn(r), r, confidence=confidence)


@dataclass(frozen=True)
class AgreementIntervals:
    """The coefficients of one set of counts on the same resamples, each with its interval."""

    fleiss_kappa: tuple[float, Interval]
    randolph_kappa: tuple[float, Interval]
    krippendorff_alpha: dict[str, tuple[float, Interval]]
    resamples: UnitResamples


def agreement_intervals(
    counts, *, seed: int, levels=("nominal",), values=None, n_categories: int | None = None,
    resamples: int = RESAMPLES, confidence: float = CONFIDENCE, jackknife_below: int = JACKKNIFE_BELOW,
) -> AgreementIntervals:  # fmt: skip
    """Fleiss', Randolph's kappa and Krippendorff's alpha at each level, with intervals from one set of resamples.

    ``values`` are the numbers of the columns for the interval level (default 0, 1, ...); nominal and ordinal
    alpha use the columns' order only.

    Examples
    --------
    >>> a = agreement_intervals([[3, 0], [0, 3], [2, 1]] * 20, seed=seed_from("x"), levels=("nominal", "interval"))
    >>> round(a.fleiss_kappa[0], 4), a.fleiss_kappa[1].method, sorted(a.krippendorff_alpha)
    (0.55, 'bootstrap', ['interval', 'nominal'])
    """
    r = unit_resamples(counts, seed=seed, resamples=resamples, jackknife_below=jackknife_below)

    def with_interval(fn):
        estimate = _estimate(fn, r)
        return estimate, interval_from_replicates(estimate, fn(r), r, confidence=confidence)

    alphas = {}
    for level in levels:
        numbers = values if level in ("interval", "ratio") else None
        alphas[level] = with_interval(lambda x, level=level, numbers=numbers: alpha_replicates(x, level, numbers))
    return AgreementIntervals(
        fleiss_kappa=with_interval(fleiss_replicates),
        randolph_kappa=with_interval(lambda x: randolph_replicates(x, n_categories=n_categories)),
        krippendorff_alpha=alphas,
        resamples=r,
    )


@dataclass(frozen=True)
class KappaMatrixIntervals:
    """Pairwise Cohen's kappa with intervals: ``low[a, b]``, ``high[a, b]`` and ``method[a, b]`` ("" if none).

    ``pair_resamples[(a, b)]`` (a < b) are the resamples of the pair's shared units, one pattern per cell of
    their confusion matrix (``patterns[g]`` is the one-hot of cell g = i * V + j).
    """

    kappa: np.ndarray
    shared: np.ndarray
    low: np.ndarray
    high: np.ndarray
    method: np.ndarray
    pair_resamples: dict


def _cohen_replicates(resamples: UnitResamples, n_values: int, w: np.ndarray) -> np.ndarray:
    """Cohen's kappa of every resample of a pair's confusion matrix (patterns are one-hot cells)."""
    cells = np.zeros((len(resamples.weights), n_values * n_values))
    cells[:, resamples.patterns.argmax(axis=1)] = resamples.weights  # one-hot patterns: a weight per cell
    return cohen_kappa_of_tables(cells.reshape(-1, n_values, n_values), w)


def cohen_kappa_matrix_intervals(
    unit, annotator, value, *, n_annotators: int, n_values: int, seed: int, weights: str | None = None,
    min_shared: int = 2, resamples: int = RESAMPLES, confidence: float = CONFIDENCE,
    jackknife_below: int = JACKKNIFE_BELOW,
) -> KappaMatrixIntervals:  # fmt: skip
    """Cohen's kappa of every pair of annotators with its interval over the units the pair shares.

    Each pair's kappa is a function of its confusion matrix, and resampling its ``n`` shared units is a
    multinomial draw of that matrix's cells (``unit_resamples`` with one pattern per cell): all pairs are
    drawn together, ``B x pairs x cells``, and their kappas computed as one stack. Pairs sharing fewer than
    ``jackknife_below`` units get the jackknife. Kappa as ``cohen_kappa_matrix`` (unweighted, linear or
    quadratic weights); the diagonal is 1 with no interval.

    Examples
    --------
    >>> m = cohen_kappa_matrix_intervals([0, 1, 2, 3, 0, 1, 2, 3], [0, 0, 0, 0, 1, 1, 1, 1],
    ...                                  [0, 1, 0, 1, 0, 1, 1, 1], n_annotators=2, n_values=2, seed=1)
    >>> m.kappa.round(4).tolist(), m.method.tolist(), bool(np.isnan(m.low[0, 1]))  # 4 shared units: no interval
    ([[1.0, 0.5], [0.5, 1.0]], [['', 'jackknife'], ['jackknife', '']], True)
    """
    unit, annotator, value = (np.asarray(x, dtype=np.int64) for x in (unit, annotator, value))
    n_units = int(unit.max()) + 1 if len(unit) else 0
    n_cells = n_values * n_values
    # every pair's confusion matrix at once: the one-hot judgements of each unit, annotator by value
    flat = np.zeros((n_units, n_annotators * n_values))
    flat[unit, annotator * n_values + value] = 1.0
    confusion = (flat.T @ flat).reshape(n_annotators, n_values, n_annotators, n_values).transpose(0, 2, 1, 3)
    confusion = confusion.round().astype(np.int64)
    shared = confusion.sum(axis=(2, 3))
    w = _kappa_weights(n_values, weights)
    kappa = np.where(shared >= min_shared, cohen_kappa_of_tables(confusion, w), np.nan)
    low, high = np.full_like(kappa, np.nan), np.full_like(kappa, np.nan)
    method = np.full((n_annotators, n_annotators), "", dtype=object)
    first, second = np.triu_indices(n_annotators, k=1)
    keep = shared[first, second] >= min_shared
    first, second = first[keep], second[keep]
    frequency = confusion[first, second].reshape(-1, n_cells)
    n = frequency.sum(axis=1)
    rng = np.random.default_rng(seed)
    eye = np.eye(n_cells, dtype=np.int64)
    pair_resamples = {}
    bootstrap = np.nonzero(n >= jackknife_below)[0]
    used = np.nonzero(frequency[bootstrap].any(axis=0))[0]  # the cells some pair filled (e.g. not customer x helpdesk)
    counts = frequency[:, used]
    drawn = np.zeros((resamples, len(bootstrap), len(used)), dtype=np.int64)
    many = bootstrap[n[bootstrap] > 30 * (counts[bootstrap] > 0).sum(axis=1)]  # a multinomial draw each
    if len(many):
        at = np.searchsorted(bootstrap, many)
        drawn[:, at] = rng.multinomial(n[many], counts[many] / n[many][:, None], size=(resamples, len(many)))
    for i in np.setdiff1d(bootstrap, many):  # few units: draw them
        present = np.nonzero(counts[i])[0]
        drawn[:, np.searchsorted(bootstrap, i), present] = _bootstrap_weights(rng, counts[i, present], resamples)
    # each resample's kappa from its cells: row and column sums through the cells' row and column indicators
    rows_of, columns_of = np.eye(n_values)[used // n_values], np.eye(n_values)[used % n_values]
    as_float = drawn.astype(float)
    rows, columns = as_float @ rows_of, as_float @ columns_of
    total = as_float.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        chance = ((rows @ w) * columns).sum(axis=-1)
        replicates = 1 - total * (as_float @ w.reshape(-1)[used]) / chance
    replicates = np.where(chance > 1e-12 * np.maximum(total, 1) ** 2, replicates, np.nan)
    for j, i in enumerate(bootstrap):
        present = np.nonzero(counts[i])[0]
        r = UnitResamples(eye[used[present]], counts[i, present], drawn[:, j, present], BOOTSTRAP)
        pair_resamples[(int(first[i]), int(second[i]))] = r
        interval = interval_from_replicates(kappa[first[i], second[i]], replicates[:, j], r, confidence=confidence)
        low[first[i], second[i]], high[first[i], second[i]] = interval.low, interval.high
        method[first[i], second[i]] = BOOTSTRAP
    for i in np.setdiff1d(np.arange(len(n)), bootstrap):
        present = np.nonzero(frequency[i])[0]
        r = _resample_patterns(
            eye[present], frequency[i, present], seed=0, resamples=0, jackknife_below=jackknife_below
        )
        pair_resamples[(int(first[i]), int(second[i]))] = r
        replicate = _cohen_replicates(r, n_values, w)
        interval = interval_from_replicates(kappa[first[i], second[i]], replicate, r, confidence=confidence)
        low[first[i], second[i]], high[first[i], second[i]] = interval.low, interval.high
        method[first[i], second[i]] = JACKKNIFE
    low, high = np.fmin(low, low.T), np.fmin(high, high.T)  # the lower triangle mirrors the upper
    method = np.where(method == "", method.T, method)
    np.fill_diagonal(kappa, np.where(np.diag(shared) >= min_shared, 1.0, np.nan))
    return KappaMatrixIntervals(kappa, shared, low, high, method, pair_resamples)
