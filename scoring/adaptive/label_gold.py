"""Label gold: when a unit's majority label is settled, with a stated error rate.

Where a project's gold is one label per unit (DBDC's breakdown label, a yes/no question's majority, a
pairwise item's winner), the label it publishes is the majority of the ``max_k`` annotators the unit
would get at most (K_max), under the preset's rule: the most frequent label if its share reaches the
threshold t, else the first label of the scale, ties going to the label first in the scale
(``scoring.breakdown.gold_labels``, the DBDC3 evaluation script's ``majority_label``). A unit can stop
early once its label at K_max is all but certain. This module says how certain.

Model (empirical Bayes). A unit's annotators are exchangeable: its K_max labels are a random sample
of the annotator population, which gives label k with probability p_k, and p varies over units as a
Dirichlet(alpha) (the prior). Whatever order the K_max annotators come in, the labels seen after n of
them are the first n of an exchangeable sequence, so given counts c (n = sum c) the R = K_max - n labels
still to come follow the Dirichlet-multinomial DM(R, alpha + c) (the Polya urn). alpha is fitted by
maximum likelihood to all the criterion's units' counts so far (Minka 2000, the fixed point for the
Polya distribution); counts stopped adaptively leave that likelihood unchanged (the stop depends on
the labels seen only), so the fit needs no correction for the stopping.

The rule. With l = the majority of c, the *change probability*

    e(c) = P(majority of c + r != l | c),   r ~ DM(R, alpha + c)

is computed (``label_change_probability``) exactly for two or three labels (a sum over the (R+1)^2
outcomes of the remaining labels) and, for more, bounded above by the union over the rival labels
j != l of the events "j beats l at K_max" (and, under a threshold, "l falls below t"), each a sum over
the collapsed trinomial (r_l, r_j, rest) ~ DM(R; alpha_l + c_l, alpha_j + c_j, rest). A unit **stops**
when it has at least ``min_k`` labels and e(c) <= delta (``LabelStopRule``); it always stops at K_max,
where e = 0.

What is guaranteed. If the units' label shares are drawn from the prior and the annotators come in
random order, then for every unit, whatever the path that led it there, the probability that the
label it stopped with differs from the label its K_max annotators would give is at most delta given
what was seen (e(c) <= delta at the stop), so the share of stopped units whose label differs from
the K_max label is at most delta in expectation (the tower property: the error rate is the mean of
e at the stops). The target is the label of the unit's K_max annotators, not the population's
majority (which an item near a tie never settles), and the guarantee is Bayesian: it holds on
average over units drawn like the project's, not for every fixed share vector. A worst-case
guarantee (a confidence sequence for sampling without replacement, Waudby-Smith and Ramdas 2020,
valid for every pool of K_max labels) exists but, with its 1/delta likelihood ratio, stops DBDC3's
turns only near K_max. The replays (``bench/adaptive_replay.py --gold label``) measure the error on
real collections against the label their full K_max annotators gave.

Allocation. The next label goes where the decision is least settled: the open unit with the largest
e(c) (``LabelStopRule.priority``).

References
----------
Minka, T. (2000). Estimating a Dirichlet distribution. Technical report, MIT (section 2, the Polya
fixed-point iteration).
Waudby-Smith, I. and Ramdas, A. (2020). Confidence sequences for sampling without replacement.
NeurIPS 33.
Tsunomori, Y., Higashinaka, R., et al. (2020). Selection of evaluation metrics for dialogue
breakdown detection in DBDC3 (``tsunomori2020_breakdown_metrics.txt``): the gold label's rule.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from scoring.breakdown import gold_labels

DEFAULT_DELTA = 0.02
MIN_ALPHA = 0.05  # no label's prior weight below this (a label no pilot unit used can still come)
MAX_CONCENTRATION = 1000.0  # alpha's sum at most this (units alike: the prior as good as a fixed share)
MIN_FIT_UNITS = 20  # units with two or more labels the fit needs; fewer: the uniform prior Dirichlet(1)
_CELLS_PER_CHUNK = 2_000_000  # (states x (R+1)^2) cells computed at a time


def _counts(counts) -> np.ndarray:
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2 or counts.shape[1] < 2:
        raise ValueError(f"counts must be units x labels with two or more labels, got shape {counts.shape}")
    if (counts < 0).any() or not np.isfinite(counts).all():
        raise ValueError("counts must be finite and not negative")
    return counts


def majority_labels(counts, threshold: float = 0.0) -> np.ndarray:
    """Each unit's label under the rule (index into the scale); the first label for a unit without labels.

    The most frequent label if its share reaches ``threshold``, else the first label; ties go to the label
    first in the scale (``scoring.breakdown.gold_labels``).

    Examples
    --------
    >>> majority_labels([[3, 3, 4], [5, 5, 0], [0, 0, 0]]).tolist(), majority_labels([[3, 3, 4]], 0.5).tolist()
    ([2, 0, 0], [0])
    """
    counts = _counts(counts)
    labels = np.zeros(len(counts), dtype=int)
    seen = counts.sum(axis=1) > 0
    if seen.any():
        labels[seen] = gold_labels(counts[seen], threshold)
    return labels


def fit_dirichlet_prior(counts, *, iterations: int = 500, tolerance: float = 1e-9) -> np.ndarray:
    """The Dirichlet(alpha) prior over label shares that best explains the units' counts, shape (labels,).

    Maximum likelihood of the Dirichlet-multinomial (Polya) distribution, each unit's counts one draw of
    its own n, by Minka's (2000) fixed point

        alpha_k <- alpha_k * sum_u [psi(c_uk + alpha_k) - psi(alpha_k)] / sum_u [psi(n_u + A) - psi(A)],

    A = sum_k alpha_k, psi the digamma function, from the method-of-moments-free start alpha = (1, ..., 1);
    each alpha_k is kept at least ``MIN_ALPHA`` and A at most ``MAX_CONCENTRATION``. With fewer than
    ``MIN_FIT_UNITS`` units of two or more labels the data say little about how shares vary: the uniform
    prior alpha = 1 is returned.

    Examples
    --------
    Units that split evenly between two labels, or all go one way, give a small concentration (shares vary
    much between units); units that all split alike give a large one:

    >>> mixed = [[5, 0]] * 20 + [[0, 5]] * 20
    >>> fit_dirichlet_prior(mixed).round(2).tolist()
    [0.05, 0.05]
    >>> bool(fit_dirichlet_prior([[3, 2], [2, 3]] * 20).sum() > 100)
    True
    """
    counts = _counts(counts)
    counts = counts[counts.sum(axis=1) >= 1]
    if int((counts.sum(axis=1) >= 2).sum()) < MIN_FIT_UNITS:
        return np.ones(counts.shape[1])
    # With integer counts psi(c + a) - psi(a) = sum_{j < c} 1 / (a + j): each sum over units is a sum over j of
    # the units with more than j labels (Minka 2000, section 2), whatever the number of units.
    whole = np.rint(counts).astype(np.int64)
    if not np.array_equal(whole, counts):
        raise ValueError("the prior is fitted to whole label counts")
    steps = np.arange(int(whole.max()))
    above = np.array([_units_above(column, len(steps)) for column in whole.T])  # (labels, j): units with c_uk > j
    n_above = _units_above(whole.sum(axis=1), int(whole.sum(axis=1).max()))
    n_steps = np.arange(len(n_above))
    alpha = np.ones(counts.shape[1])
    for _ in range(iterations):
        denominator = (n_above / (alpha.sum() + n_steps)).sum()
        numerator = (above / (alpha[:, None] + steps[None, :])).sum(axis=1)
        new = np.maximum(alpha * numerator / denominator, MIN_ALPHA)
        if new.sum() > MAX_CONCENTRATION:
            new *= MAX_CONCENTRATION / new.sum()
        done = np.abs(new - alpha).max() <= tolerance * max(1.0, alpha.max())
        alpha = new
        if done:
            break
    return alpha


def _units_above(values: np.ndarray, length: int) -> np.ndarray:
    """For j in 0..length-1, how many of ``values`` (whole numbers) exceed j."""
    histogram = np.bincount(values, minlength=length + 1)
    return (len(values) - np.cumsum(histogram))[:length]


def _collapsed_pmf(gammaln, x, y, z, remaining: int) -> np.ndarray:
    """P(r_l = a, r_j = b) for (r_l, r_j, rest) ~ DM(R; x, y, z), shape (states, R+1, R+1); z may be 0.

    The log pmf is a sum of a term in a, one in b and one in R - a - b: each is computed once per state over
    0..R and the grid is their broadcast sum."""
    k = np.arange(remaining + 1, dtype=float)[None, :]
    x, y, z = x[:, None], y[:, None], z[:, None]
    log_a = gammaln(k + x) - gammaln(x) - gammaln(k + 1)  # (states, R+1)
    log_b = gammaln(k + y) - gammaln(y) - gammaln(k + 1)
    positive = z > 0
    safe_z = np.where(positive, z, 1.0)
    log_rest = np.where(positive, gammaln(k + safe_z) - gammaln(safe_z), np.where(k == 0, 0.0, -np.inf))
    log_rest = log_rest - gammaln(k + 1)
    total = x[:, 0] + y[:, 0] + z[:, 0]
    constant = gammaln(remaining + 1.0) + gammaln(total) - gammaln(remaining + total)  # (states,)
    a = np.arange(remaining + 1)[:, None]
    rest = remaining - a - np.arange(remaining + 1)[None, :]  # (R+1, R+1)
    valid = rest >= 0
    log = log_a[:, :, None] + log_b[:, None, :] + log_rest[:, np.where(valid, rest, 0)] + constant[:, None, None]
    return np.where(valid[None], np.exp(log), 0.0)


def _exact_at(gammaln, counts, evidence, alpha, remaining, max_k, threshold) -> np.ndarray:
    """e(c) exactly for two or three labels: the whole DM(R, alpha + evidence) of the remaining labels on a grid."""
    label = majority_labels(counts, threshold)
    if counts.shape[1] == 2:  # a third label nobody gives: weight 0, never a count
        counts = np.column_stack([counts, np.zeros(len(counts))])
        evidence = np.column_stack([evidence, np.zeros(len(evidence))])
        alpha = np.append(alpha, 0.0)
    posterior = evidence + alpha
    pmf = _collapsed_pmf(gammaln, posterior[:, 0], posterior[:, 1], posterior[:, 2], remaining)
    a = np.arange(remaining + 1)[None, :, None]
    b = np.arange(remaining + 1)[None, None, :]
    first = (counts[:, 0, None, None] + a) / max_k
    second = (counts[:, 1, None, None] + b) / max_k
    third = (counts[:, 2, None, None] + (remaining - a - b)) / max_k
    # the first maximum (ties to the label first in the scale), then the threshold: as ``majority_labels``
    first_best = (first >= second) & (first >= third)
    second_best = ~first_best & (second >= third)
    top = np.where(first_best, first, np.where(second_best, second, third))
    final = np.where(first_best, 0, np.where(second_best, 1, 2))
    final = np.where(top >= threshold, final, 0)
    changed = final != label[:, None, None]
    return np.minimum((pmf * changed).sum(axis=(1, 2)), 1.0)


def _union_bound_at(gammaln, counts, evidence, alpha, remaining, max_k, threshold) -> np.ndarray:
    """An upper bound on e(c) for four labels or more: the sum over rivals j of P(j overturns l)."""
    n_labels = counts.shape[1]
    label = majority_labels(counts, threshold)
    rows = np.arange(len(counts))
    posterior = evidence + alpha
    x = posterior[rows, label]
    c_l = counts[rows, label]
    a = np.arange(remaining + 1)[None, :, None]
    b = np.arange(remaining + 1)[None, None, :]
    total = np.zeros(len(counts))
    for shift in range(1, n_labels):
        j = (label + shift) % n_labels  # every rival once, per unit
        y = posterior[rows, j]
        z = np.maximum(posterior.sum(axis=1) - x - y, 0.0)
        pmf = _collapsed_pmf(gammaln, x, y, z, remaining)
        final_l = (c_l[:, None, None] + a) / max_k
        final_j = (counts[rows, j][:, None, None] + b) / max_k
        # j beats l: more labels, or as many when j comes first in the scale (ties to the first label)
        overturns = (final_j > final_l) | ((final_j == final_l) & (j < label)[:, None, None])
        if threshold > 0:
            # the first label also wins when no label reaches t: j must reach it to change l = first label
            overturns &= (label != 0)[:, None, None] | (final_j >= threshold)
            if shift == 1:  # l (not the first label) falling below t changes it to the first label
                overturns |= (label != 0)[:, None, None] & (final_l < threshold)
        total += (pmf * overturns).sum(axis=(1, 2))
    return np.minimum(total, 1.0)


def label_change_probability(counts, alpha, max_k: int, threshold: float = 0.0, *, evidence=None) -> np.ndarray:
    """e(c): the probability that a unit's majority at ``max_k`` labels differs from its majority now (at most).

    Parameters
    ----------
    counts : array-like, shape (units, labels)
        Each unit's label counts so far.
    alpha : array-like, shape (labels,)
        The Dirichlet prior over label shares (``fit_dirichlet_prior``).
    max_k : int
        K_max, the labels a unit gets at most: the label the guarantee is about is its majority at K_max.
    threshold : float
        The majority rule's share threshold t (``majority_labels``).
    evidence : array-like, shape (units, labels), optional
        What the posterior over the unit's shares is given in place of its counts: Dirichlet(alpha + evidence)
        (for example counts reweighted by what is known of the annotators who gave them); the labels at K_max
        are still the counts plus the remaining labels. Default: the counts.

    Returns
    -------
    ndarray, shape (units,)
        Exact for two or three labels, else the union bound over the rival labels described in the module
        docstring (at least the exact probability); 0 for units with ``max_k`` labels or more.

    Notes
    -----
    With x = alpha_l + c_l, y = alpha_j + c_j, z = the rest of the posterior's weight and R = max_k - n,
    the collapsed remaining labels have P(a, b) = R! / (a! b! (R-a-b)!) * G(x+y+z) / G(R+x+y+z) *
    G(a+x)/G(x) * G(b+y)/G(y) * G(R-a-b+z)/G(z) (G the gamma function), summed where l is beaten.

    Examples
    --------
    Two labels, prior Beta(1, 1), 10 labels at most. After 4 to 0 the second label needs all 6 labels still
    to come (5 of them would tie, and ties go to the first label): B(5, 7) / B(5, 1) = 6! 5! / 11! = 1/462.
    After 2 to 2 the first label loses when the second gets 4 or more of the 6: 0.3918. At 10 labels
    nothing is left to change:

    >>> label_change_probability([[4, 0], [2, 2], [10, 0]], [1, 1], max_k=10).round(4).tolist()
    [0.0022, 0.3918, 0.0]
    """
    from scipy.special import gammaln  # here, not at import: the web process starts without scipy

    counts = _counts(counts)
    alpha = np.asarray(alpha, dtype=float)
    if alpha.shape != (counts.shape[1],) or not (alpha > 0).all():
        raise ValueError(f"alpha must be {counts.shape[1]} positive weights, got {alpha.tolist()}")
    if int(max_k) < 1:
        raise ValueError(f"max_k must be at least 1, got {max_k}")
    if not 0 <= threshold <= 1:
        raise ValueError(f"the threshold is a share between 0 and 1, got {threshold}")
    evidence = counts if evidence is None else _counts(evidence)
    if evidence.shape != counts.shape:
        raise ValueError(f"evidence must have the counts' shape {counts.shape}, got {evidence.shape}")
    out = np.zeros(len(counts))
    if not len(counts):
        return out
    width = counts.shape[1]
    distinct, inverse = np.unique(np.hstack([counts, evidence]), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    distinct, distinct_evidence = distinct[:, :width], distinct[:, width:]
    remaining = (int(max_k) - distinct.sum(axis=1)).astype(int)
    at_remaining = _exact_at if counts.shape[1] <= 3 else _union_bound_at
    found = np.zeros(len(distinct))
    for r in np.unique(remaining[remaining > 0]).tolist():
        at = np.flatnonzero(remaining == r)
        step = max(1, _CELLS_PER_CHUNK // (r + 1) ** 2)
        for start in range(0, len(at), step):
            chunk = at[start : start + step]
            found[chunk] = at_remaining(
                gammaln, distinct[chunk], distinct_evidence[chunk], alpha, r, int(max_k), threshold
            )
    out[:] = found[inverse]
    return out


@dataclass(frozen=True)
class LabelStopRule:
    """Label gold's stop rule: a unit stops with ``min_k`` labels or more once e(c) <= ``delta``.

    ``max_k`` is K_max, the labels a unit gets at most and the count whose majority the guarantee is about;
    ``threshold`` the majority rule's share threshold; ``alpha`` the Dirichlet prior over label shares, None to
    fit it on the counts the rule is given (``bound``; ``fit_dirichlet_prior``). The rule answers the same
    questions as ``scoring.adaptive.StopRule`` (``statistic``, ``units_stable``, ``priority``), so that items
    whose criteria mix distribution and label gold are decided together.

    Examples
    --------
    >>> rule = LabelStopRule(delta=0.02, min_k=3, max_k=10, alpha=(1.0, 1.0))
    >>> rule.units_stable([[4, 0], [2, 2], [9, 0], [2, 0], [10, 0]]).tolist()
    [True, False, True, False, False]
    >>> rule.settled([[10, 0]]).tolist()
    [True]
    """

    delta: float = DEFAULT_DELTA
    min_k: int = 3
    max_k: int = 30
    threshold: float = 0.0
    alpha: tuple[float, ...] | None = None
    kind: ClassVar[str] = "label"

    def __post_init__(self):
        if not 0 < self.delta < 1:
            raise ValueError(f"delta must be between 0 and 1, got {self.delta}")
        if self.min_k < 0 or self.max_k < max(self.min_k, 1):
            raise ValueError(f"need 0 <= min_k <= max_k and max_k >= 1, got min_k={self.min_k}, max_k={self.max_k}")
        if not 0 <= self.threshold <= 1:
            raise ValueError(f"the threshold is a share between 0 and 1, got {self.threshold}")
        if self.alpha is not None:
            object.__setattr__(self, "alpha", tuple(float(a) for a in self.alpha))

    @property
    def stop_below(self) -> float:
        """The number the statistic is compared with (as ``StopRule.threshold``): delta."""
        return self.delta

    def bound(self, counts) -> LabelStopRule:
        """This rule with its prior: as given, or fitted on ``counts`` (all the criterion's units)."""
        if self.alpha is not None:
            return self
        return replace(self, alpha=tuple(fit_dirichlet_prior(counts).tolist()))

    def statistic(self, counts) -> np.ndarray:
        """e(c) per unit (``label_change_probability``; smaller is more settled)."""
        counts = _counts(counts)
        alpha = self.alpha if self.alpha is not None else fit_dirichlet_prior(counts)
        return label_change_probability(counts, alpha, self.max_k, self.threshold)

    def priority(self, counts) -> np.ndarray:
        """How unsettled each unit's decision is, the allocation's score: e(c) itself."""
        return self.statistic(counts)

    def decide(self, counts) -> tuple[np.ndarray, np.ndarray]:
        """(``units_stable``, ``priority``) at once, e(c) computed once."""
        counts = _counts(counts)
        change = self.statistic(counts)
        n = counts.sum(axis=1)
        return (n >= self.min_k) & (n < self.max_k) & (change <= self.delta), change

    def units_stable(self, counts) -> np.ndarray:
        """Per unit: at least ``min_k`` labels, fewer than ``max_k`` (there the label is final: the item is at
        its maximum rather than stopped early) and e(c) <= delta."""
        return self.decide(counts)[0]

    def settled(self, counts) -> np.ndarray:
        """Per unit: its label will not change with probability at least 1 - delta (stable, or at ``max_k``)."""
        counts = _counts(counts)
        n = counts.sum(axis=1)
        return (n >= self.max_k) | ((n >= self.min_k) & (self.statistic(counts) <= self.delta))

    def labels(self, counts) -> np.ndarray:
        """Each unit's label now (``majority_labels`` under the rule's threshold)."""
        return majority_labels(counts, self.threshold)
