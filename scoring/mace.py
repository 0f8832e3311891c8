"""MACE (Multi-Annotator Competence Estimation): whom to trust, fitted by variational EM on whole arrays.

Each annotator j answers knowingly with probability theta_j (then the answer is the unit's true label) and
otherwise spams, drawing the answer from a label distribution xi_j of their own; the true labels are
uniform a priori (Hovy et al. 2013). With judgement k = (unit i, annotator j, answer a):

    f_k(t)   = (1 - theta_j) xi_j[a] + theta_j [t = a]             P(answer | true label t)
    G[i, t]  = (1 / L) prod_{k in i} f_k(t),   Z_i = sum_t G[i, t]  joint of unit i's answers and t
    P(true label of i = t)  = G[i, t] / Z_i                         the posterior reported
    P(j spammed on k)       = sum_t G[i, t] / f_k(t) (1 - theta_j) xi_j[a] / Z_i
    P(j knew on k)          = G[i, a] / f_k(a) theta_j / Z_i

The E-step sums the last two per annotator (spam and knowing counts) and per annotator and answer (strategy
counts), with ``np.bincount`` over the judgements, the products of the first in log space (no underflow
however many annotators a unit has). The M-step is the paper's variational Bayes update with a symmetric
Beta(0.5, 0.5) prior on theta_j and a symmetric Dirichlet(10) prior on xi_j: each row of counts c plus
prior h becomes exp(digamma(c + h)) / exp(digamma(sum(c + h))), weights that sum to a little under one and
stand for theta_j, 1 - theta_j and xi_j in the E-step as in the paper's variational version.

Matched to crowd-kit's ``MACE`` (Ustalov et al. 2021, version 1.4.2, method "vb"), which the platform used
before and the tests take as the independent reference: the same priors; the same start, theta and xi
drawn uniform in [1, 2.5) from ``RandomState(seed)`` and normalised, rows in order of first appearance of
the annotators and labels in the judgements sorted by unit then annotator; one E-step, then ``n_iter``
M- and E-steps; only the labels someone gave count (L), the others get probability 0. Two differences,
both checked in the tests:

* crowd-kit draws every restart from the same ``random_state``, so its restarts repeat one fit: one is run.
* crowd-kit sums the strategy counts with a pandas ``groupby`` sorted by annotator and label name but reads
  them as if in order of first appearance, giving an annotator another's counts (or another label's)
  whenever the two orders differ. Here they stay with their annotator and label; crowd-kit agrees to
  float precision when given names whose sorted order is their order of appearance.

References
----------
Hovy, D., Berg-Kirkpatrick, T., Vaswani, A. & Hovy, E. (2013). Learning whom to trust with MACE.
NAACL-HLT, 1120-1130. https://aclanthology.org/N13-1132
Ustalov, D., Pavlichenko, N. & Tseitlin, B. (2021). Learning from crowds with Crowd-Kit. arXiv:2109.08584.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

THETA_PRIOR = (0.5, 0.5)  # Beta prior on (spamming, knowing): crowd-kit's alpha and beta
STRATEGY_PRIOR = 10.0  # symmetric Dirichlet prior on each annotator's spamming distribution xi_j
INITIAL_SPREAD = (1.0, 2.5)  # starting values drawn uniform in this range, then normalised (crowd-kit's)


@dataclass(frozen=True)
class MaceFit:
    """``posteriors[u]``: unit u's distribution over the values (NaN row: nobody labelled it);
    ``competence[a]``: theta_a, the probability that annotator a answers knowingly (NaN: no labels);
    ``spam[a]``: the weight of spamming beside ``competence[a]`` (the variational update leaves the two summing
    to a little under one); ``strategy[a]``: xi_a, annotator a's weights of the values when spamming (NaN row:
    no labels; likewise a little under one in all)."""

    posteriors: np.ndarray
    competence: np.ndarray
    spam: np.ndarray
    strategy: np.ndarray


def _first_appearance(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(present, rank): the codes that occur, in order of first occurrence, and each code's position there."""
    first = np.full(size, len(codes))
    np.minimum.at(first, codes, np.arange(len(codes)))
    present = np.nonzero(first < len(codes))[0]
    present = present[np.argsort(first[present], kind="stable")]
    rank = np.full(size, -1)
    rank[present] = np.arange(len(present))
    return present, rank


def _variational_normalise(counts: np.ndarray, prior) -> np.ndarray:
    """exp(digamma(c + h)) / exp(digamma(sum(c + h))) per row: the mean-field update of a Dirichlet row."""
    from scipy.special import digamma

    total = counts + prior
    return np.exp(digamma(total) - digamma(total.sum(axis=1, keepdims=True)))


def mace(unit, annotator, value, *, n_units: int, n_values: int, n_annotators: int, n_iter: int = 100, seed: int = 0):
    """Fit MACE to labels in long form; posteriors per unit and competence per annotator.

    Parameters
    ----------
    unit, annotator, value : array-like of int, shape (n_judgements,)
        Judgement k gave value index ``value[k]`` to unit ``unit[k]`` as annotator ``annotator[k]``, all
        in range (checked by the caller, ``scoring.aggregation.aggregate``). Order does not matter.
    n_units, n_values, n_annotators : int
    n_iter : int
        Variational EM iterations after the first E-step.
    seed : int
        Seed of the starting values.

    Returns
    -------
    MaceFit

    Examples
    --------
    Three annotators agree on four units; a fourth answers 0 whatever the truth:

    >>> unit = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]
    >>> annotator = [0, 1, 2, 3] * 4
    >>> value = [1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0]
    >>> fit = mace(unit, annotator, value, n_units=4, n_values=2, n_annotators=4)
    >>> fit.posteriors.argmax(axis=1).tolist()
    [1, 0, 1, 1]
    >>> bool(fit.competence[3] < fit.competence[:3].min())
    True
    """
    unit, annotator, value = (np.asarray(x, dtype=np.int64) for x in (unit, annotator, value))
    order = np.lexsort((annotator, unit))
    unit, annotator, value = unit[order], annotator[order], value[order]
    workers, worker_rank = _first_appearance(annotator, n_annotators)
    labels, label_rank = _first_appearance(value, n_values)
    units, task = np.unique(unit, return_inverse=True)
    w, a = worker_rank[annotator], label_rank[value]
    n_w, n_l, n_t = len(workers), len(labels), len(units)

    rng = np.random.RandomState(seed)
    spamming = rng.uniform(*INITIAL_SPREAD, size=(n_w, 2))  # columns: P(spam), P(knowing)
    spamming /= spamming.sum(axis=1, keepdims=True)
    rng = np.random.RandomState(seed)  # crowd-kit draws xi from a fresh generator with the same seed
    strategy = rng.uniform(*INITIAL_SPREAD, size=(n_w, n_l))
    strategy /= strategy.sum(axis=1, keepdims=True)
    hit = a[:, None] == np.arange(n_l)  # judgements x labels: the answer is label t

    def e_step():
        spam = spamming[w, 0] * strategy[w, a]  # (1 - theta_j) xi_j[a]
        factor = spam[:, None] + spamming[w, 1][:, None] * hit  # f_k(t)
        log_factor = np.log(factor)
        log_joint = np.stack([np.bincount(task, log_factor[:, t], minlength=n_t) for t in range(n_l)], axis=1)
        log_joint -= np.log(n_l)
        log_z = np.logaddexp.reduce(log_joint, axis=1)
        posterior = np.exp(log_joint - log_z[:, None])
        share = np.exp(log_joint[task] - log_z[task, None] - log_factor)  # P(t | others' answers) per k
        p_spam = (share * spam[:, None]).sum(axis=1)
        p_knew = share[np.arange(len(a)), a] * spamming[w, 1]
        knowing = np.stack([np.bincount(w, p_spam, minlength=n_w), np.bincount(w, p_knew, minlength=n_w)], axis=1)
        counts = np.bincount(w * n_l + a, p_spam, minlength=n_w * n_l).reshape(n_w, n_l)
        return posterior, knowing, counts

    posterior, knowing, counts = e_step()
    for _ in range(n_iter):
        spamming = _variational_normalise(knowing, np.array(THETA_PRIOR))
        strategy = _variational_normalise(counts, STRATEGY_PRIOR)
        posterior, knowing, counts = e_step()

    posteriors = np.full((n_units, n_values), np.nan)
    posteriors[units] = 0.0
    posteriors[np.ix_(units, labels)] = posterior
    competence = np.full(n_annotators, np.nan)
    competence[workers] = spamming[:, 1]
    spam = np.full(n_annotators, np.nan)
    spam[workers] = spamming[:, 0]
    xi = np.full((n_annotators, n_values), np.nan)
    xi[workers] = 0.0
    xi[np.ix_(workers, labels)] = strategy
    return MaceFit(posteriors, competence, spam, xi)
