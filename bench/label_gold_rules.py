"""Label gold's alternative stop rules, replayed beside the platform's (``bench/adaptive_replay.py --label-rule``).

The platform's rule (``scoring.adaptive.LabelStopRule``, ``--label-rule per_unit``) stops a unit once the
probability e(c) that its label at K_max differs from its label now is at most delta: every stopped unit's
own error is at most delta, so the share of wrong labels is too. Two rules answer what a weaker promise,
or none, would buy on the same replays:

* ``bayes_optimal``: only the *average* error is held at delta. Under the same model (a Dirichlet(alpha)
  prior fitted to the counts collected so far, the labels still to come a Dirichlet-multinomial), the
  policy that takes the fewest labels in expectation for an expected error rate of delta is the Bayes
  sequential decision with a price lambda per label (DeGroot 1970, chapter 12; Wald and Wolfowitz 1948): by
  backward induction over the count vectors c (n = sum c labels),

      V(c) = 0 at n = K_max,   V(c) = min(e(c), lambda + sum_k p_k(c) V(c + 1_k)) below (stop only from min_k),
      p_k(c) = (alpha_k + c_k) / (A + n)   (the Polya urn's next label),

  a unit stops where e(c) is the smaller. Its expected error rate, the sum over the stop states of
  P(reach c and stop) e(c) from c = 0 forward, falls as lambda falls; lambda is bisected (on a log scale)
  to the largest whose expected error rate is at most delta. Only the model is used to set lambda, never
  a label of the full K_max (the replay's answer). A stopped unit's own e(c) may exceed delta: the
  promise is the Bayesian false-discovery kind (Newton et al. 2004), an average over the units. Three
  labels (DBDC3's O, T, X) only: the count vectors up to K_max = 30 are 5,456 states.
* ``per_unit_mixture``: the platform's per-unit rule under a sharper prior, a mixture of as many Dirichlets
  as labels (Sjolander et al. 1996) fitted by EM to the counts collected so far, each component by a
  weighted Minka (2000) fixed point; given c, component m has posterior weight w_m DM(c | alpha_m) / sum,
  and e(c) is the mixture of the components' change probabilities.
* ``oracle_stops`` (not a rule: a bound): the Bayes-optimal stop states when the model is the replayed
  collection itself (its units' full counts, each unit's annotators in random order), with the expected
  error rate over those units at delta. No rule that decides a unit from its own labels takes fewer labels
  on that collection at that error rate in expectation, whatever prior or tuning it is given.
* ``lead``: stop once the leading label leads the second by ``--lead`` votes (at least ``min_k``, at
  most K_max), the heuristic the issue measured; no stated error rate.

References
----------
DeGroot, M. H. (1970). Optimal Statistical Decisions. McGraw-Hill, chapter 12 (sequential sampling,
backward induction).
Wald, A. and Wolfowitz, J. (1948). Optimum character of the sequential probability ratio test. Annals of
Mathematical Statistics 19(3), 326-339 (the Bayes sequential problem with a cost per observation).
Minka, T. (2000). Estimating a Dirichlet distribution. Technical report, MIT.
Sjolander, K., Karplus, K., Brown, M., Hughey, R., Krogh, A., Mian, I. S. and Haussler, D. (1996). Dirichlet
mixtures: a method for improved detection of weak but significant protein sequence homology. CABIOS 12(4),
327-345.
Newton, M. A., Noueiry, A., Sarkar, D. and Ahlquist, P. (2004). Detecting differential gene expression
with a semiparametric hierarchical mixture method. Biostatistics 5(2), 155-176 (the expected share of
wrong calls bounded by the mean posterior error).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scoring.adaptive import fit_dirichlet_prior, label_change_probability, majority_labels

BISECTIONS = 24  # lambda from 1e-7 to 1 on a log scale: a factor of about 1.0007 at the end


def count_states(max_k: int) -> np.ndarray:
    """Every count vector (a, b, c) of three labels with a + b + c <= max_k, shape (states, 3)."""
    a, b, c = np.meshgrid(*(np.arange(max_k + 1),) * 3, indexing="ij")
    inside = a + b + c <= max_k
    return np.column_stack([a[inside], b[inside], c[inside]])


def optimal_stops(alpha, max_k: int, min_k: int, delta: float, threshold: float = 0.0) -> tuple[np.ndarray, dict]:
    """The Bayes-optimal stop states at an expected error rate of ``delta``: (stop[a, b, c], figures).

    ``stop`` has shape (max_k + 1,) * 3 (True where a unit with those counts stops); the figures are the
    policy's expected error rate and labels per unit under the prior, and its price per label lambda.

    Examples
    --------
    Two labels' worth of prior on each of three labels, 10 labels at most: a unit that starts 3-0-0 stops
    (its label changes with probability 0.048 and more labels would cost more than they fix), a 1-1-1 unit
    goes on, and the policy's expected error rate is at most delta:

    >>> stop, figures = optimal_stops([2.0, 2.0, 2.0], max_k=10, min_k=3, delta=0.05)
    >>> bool(stop[3, 0, 0]), bool(stop[1, 1, 1]), figures["expected_error"] <= 0.05
    (True, False, True)
    """
    alpha = np.asarray(alpha, dtype=float)
    if alpha.shape != (3,):
        raise ValueError(f"the Bayes-optimal rule is built for three labels, got a prior of {len(alpha)}")
    states = count_states(max_k)
    index = tuple(states.T)
    change = np.zeros((max_k + 1,) * 3)
    change[index] = label_change_probability(states.astype(float), alpha, max_k, threshold)
    n = states.sum(axis=1)
    following = np.zeros((max_k + 1,) * 3 + (3,))
    following[index] = (alpha[None, :] + states) / (alpha.sum() + n[:, None])
    return cheapest_stops(change, following, max_k, min_k, delta)


def cheapest_stops(change: np.ndarray, following: np.ndarray, max_k: int, min_k: int, delta: float):
    """The stop states that take the fewest labels in expectation at an expected error rate of ``delta``.

    ``change[a, b, c]`` is the probability that a unit stopped at counts (a, b, c) has another label at K_max,
    ``following[a, b, c, k]`` the probability that its next label is k: the Bayes sequential decision with a
    price lambda per label by backward induction (module docstring), lambda bisected on a log scale to the
    largest whose expected error rate is at most delta. Returns (stop, figures) as ``optimal_stops``.
    """
    states = count_states(max_k)
    n = states.sum(axis=1)
    levels = [states[n == level].T for level in range(max_k + 1)]

    def policy(price: float) -> tuple[np.ndarray, float, float]:
        value = np.zeros((max_k + 2,) * 3)
        stop = np.zeros((max_k + 1,) * 3, dtype=bool)
        for level in range(max_k - 1, -1, -1):
            a, b, c = levels[level]
            p = following[a, b, c]
            go_on = price + p[:, 0] * value[a + 1, b, c] + p[:, 1] * value[a, b + 1, c] + p[:, 2] * value[a, b, c + 1]
            here = (change[a, b, c] <= go_on) & (level >= min_k)
            value[a, b, c] = np.where(here, change[a, b, c], go_on)
            stop[a, b, c] = here
        reach = np.zeros((max_k + 2,) * 3)
        reach[0, 0, 0] = 1.0
        error = labels = 0.0
        for level in range(max_k):
            a, b, c = levels[level]
            arrived, here = reach[a, b, c], stop[a, b, c]
            error += float((arrived * here * change[a, b, c]).sum())
            onward = arrived * ~here
            labels += float(onward.sum())
            p = following[a, b, c]
            for k, at in enumerate(((a + 1, b, c), (a, b + 1, c), (a, b, c + 1))):
                np.add.at(reach, at, onward * p[:, k])  # distinct targets per k: one add per state
        return stop, error, labels

    low, high = np.log(1e-7), 0.0  # the price at low meets delta (checked below), at high need not
    stop, error, labels = policy(np.exp(low))
    if error > delta:
        raise ValueError(f"no price per label keeps the expected error at {delta} (at {np.exp(low):.0e}: {error})")
    best = (stop, error, labels, float(np.exp(low)))
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        stop, error, labels = policy(float(np.exp(middle)))
        if error <= delta:
            low, best = middle, (stop, error, labels, float(np.exp(middle)))
        else:
            high = middle
    stop, error, labels, price = best
    return stop, {"expected_error": error, "labels_per_unit": labels, "price_per_label": price}


def oracle_stops(full_counts, min_k: int, delta: float, threshold: float = 0.0) -> tuple[np.ndarray, dict]:
    """The in-sample bound: the fewest labels any rule deciding a unit from its own counts could take.

    ``full_counts`` (units, 3) are the units' labels from all K_max annotators (every unit the same K_max).
    The rule is given the replays' own answer, the exact mixture of these units: a unit drawn at random,
    its annotators in random order, the counts after n of them are multivariate hypergeometric,
    P(c | u) = prod_k C(C_uk, c_k) / C(K_max, n), so given c the unit is u with weight P(c | u), its next
    label is k with probability sum_u P(c | u) (C_uk - c_k) / (K_max - n) / sum_u P(c | u), and its label
    at K_max differs from the label of c with probability sum_u P(c | u) [L_u != label(c)] / sum_u P(c | u).
    ``cheapest_stops`` on that model is the optimal stop rule (counts are sufficient: the order of a unit's
    annotators is random) with the error rate over these units, expected over the orders, at most delta:
    no rule that decides from a unit's labels, whatever its prior, takes fewer labels on these units in
    expectation at that error rate (up to the Lagrangian's convex hull: a randomised rule could meet delta
    exactly). Figures as ``optimal_stops``.
    """
    from scipy.special import gammaln

    full = np.rint(np.asarray(full_counts)).astype(int)
    max_k = int(full.sum(axis=1)[0])
    if full.shape[1] != 3 or (full.sum(axis=1) != max_k).any():
        raise ValueError("the oracle needs three labels and the same K_max for every unit")
    states = count_states(max_k)
    n = states.sum(axis=1)
    now = majority_labels(states, threshold)
    change = np.zeros((max_k + 1,) * 3)
    following = np.zeros((max_k + 1,) * 3 + (3,))
    distinct, units = np.unique(full, axis=0, return_counts=True)
    final = majority_labels(distinct, threshold)

    def log_choose(top, bottom):
        return gammaln(top + 1) - gammaln(bottom + 1) - gammaln(top - bottom + 1)

    possible = (distinct[None, :, :] >= states[:, None, :]).all(axis=2)
    log = np.where(
        possible,
        log_choose(distinct[None, :, :], np.minimum(states[:, None, :], distinct[None, :, :])).sum(axis=2)
        - log_choose(max_k, n)[:, None],
        -np.inf,
    )
    weight = np.exp(log) * units[None, :]
    mass = weight.sum(axis=1)
    reachable = mass > 0
    index = tuple(states[reachable].T)
    w = weight[reachable] / mass[reachable, None]
    change[index] = (w * (final[None, :] != now[reachable, None])).sum(axis=1)
    left = np.maximum(max_k - n[reachable], 1)  # the labels still to come (none at K_max: nothing follows)
    for k in range(3):
        following[index + (k,)] = (w * (distinct[None, :, k] - states[reachable, None, k])).sum(axis=1) / left
    return cheapest_stops(change, following, max_k, min_k, delta)


@dataclass(frozen=True)
class BayesOptimalLabelRule:
    """The Bayes-optimal stop rule at an expected error rate of delta (module docstring); the prior fitted by
    ``bound`` to the counts collected so far, as ``scoring.adaptive.LabelStopRule`` fits its own."""

    delta: float
    min_k: int = 3
    max_k: int = 30
    threshold: float = 0.0
    alpha: tuple[float, ...] | None = None
    stop: np.ndarray | None = field(default=None, compare=False, repr=False)
    kind = "label"

    def bound(self, counts) -> BayesOptimalLabelRule:
        alpha = fit_dirichlet_prior(counts)
        stop, _ = optimal_stops(alpha, self.max_k, self.min_k, self.delta, self.threshold)
        return BayesOptimalLabelRule(self.delta, self.min_k, self.max_k, self.threshold, tuple(alpha.tolist()), stop)

    def units_stable(self, counts) -> np.ndarray:
        counts = np.rint(np.asarray(counts)).astype(int)
        n = counts.sum(axis=1)
        return (n >= self.min_k) & (n < self.max_k) & self.stop[counts[:, 0], counts[:, 1], counts[:, 2]]


@dataclass(frozen=True)
class LeadRule:
    """Stop once the leading label leads the second by ``lead`` votes (module docstring)."""

    lead: int
    min_k: int = 3
    max_k: int = 30
    threshold: float = 0.0
    kind = "label"

    def bound(self, counts) -> LeadRule:
        return self

    def units_stable(self, counts) -> np.ndarray:
        ordered = np.sort(np.asarray(counts), axis=1)
        n = ordered.sum(axis=1)
        return (n >= self.min_k) & (n < self.max_k) & (ordered[:, -1] - ordered[:, -2] >= self.lead)


def _log_polya(counts: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """log DM(c | alpha) without the multinomial coefficient (it cancels between components), per row."""
    from scipy.special import gammaln

    return (
        gammaln(alpha.sum())
        - gammaln(counts.sum(axis=1) + alpha.sum())
        + (gammaln(counts + alpha) - gammaln(alpha)).sum(axis=1)
    )


def component_posterior(counts: np.ndarray, weights, alphas) -> np.ndarray:
    """P(m | c) for each unit and component, proportional to w_m DM(c | alpha_m), shape (units, M)."""
    log = np.log(np.maximum(weights, 1e-300))[None, :] + np.column_stack([_log_polya(counts, a) for a in alphas])
    posterior = np.exp(log - log.max(axis=1, keepdims=True))
    return posterior / posterior.sum(axis=1, keepdims=True)


def fit_dirichlet_mixture(counts, iterations: int = 100, inner: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """(weights (M,), alphas (M, labels)): a mixture of M = labels Dirichlets fitted by EM to the units' counts.

    Units start in the component of their leading label (0.8, the rest spread); the M-step moves each
    component by Minka's fixed point with the units weighted by their responsibilities. Distinct count
    vectors are fitted once, weighted by how many units have them.
    """
    from scipy.special import digamma

    counts = np.asarray(counts, dtype=float)
    distinct, units = np.unique(counts[counts.sum(axis=1) > 0], axis=0, return_counts=True)
    n_labels = counts.shape[1]
    responsibility = np.full((len(distinct), n_labels), 0.2 / max(n_labels - 1, 1))
    responsibility[np.arange(len(distinct)), distinct.argmax(axis=1)] = 0.8
    alphas = np.ones((n_labels, n_labels))
    n = distinct.sum(axis=1)
    for _ in range(iterations):
        mass = responsibility * units[:, None]
        weights = mass.sum(axis=0) / mass.sum()
        for m in range(n_labels):
            alpha = alphas[m]
            for _ in range(inner):
                numerator = (mass[:, m, None] * (digamma(distinct + alpha) - digamma(alpha))).sum(axis=0)
                denominator = (mass[:, m] * (digamma(n + alpha.sum()) - digamma(alpha.sum()))).sum()
                alpha = np.clip(alpha * numerator / max(denominator, 1e-300), 0.05, 1000.0)
            alphas[m] = alpha
        responsibility = component_posterior(distinct, weights, alphas)
    return weights, alphas


def mixture_change_probability(counts, weights, alphas, max_k: int, threshold: float = 0.0) -> np.ndarray:
    """e(c) under the mixture prior: sum_m P(m | c) e_m(c), P(m | c) proportional to w_m DM(c | alpha_m)."""
    counts = np.asarray(counts, dtype=float)
    posterior = component_posterior(counts, weights, alphas)
    changes = np.column_stack([label_change_probability(counts, a, max_k, threshold) for a in alphas])
    return (posterior * changes).sum(axis=1)


@dataclass(frozen=True)
class MixturePerUnitLabelRule:
    """The per-unit rule (a unit stops once e(c) <= delta) under the Dirichlet-mixture prior (module docstring)."""

    delta: float
    min_k: int = 3
    max_k: int = 30
    threshold: float = 0.0
    prior: tuple | None = field(default=None, compare=False, repr=False)
    kind = "label"

    def bound(self, counts) -> MixturePerUnitLabelRule:
        return MixturePerUnitLabelRule(
            self.delta, self.min_k, self.max_k, self.threshold, fit_dirichlet_mixture(counts)
        )

    def units_stable(self, counts) -> np.ndarray:
        counts = np.asarray(counts, dtype=float)
        n = counts.sum(axis=1)
        weights, alphas = self.prior
        change = mixture_change_probability(counts, weights, alphas, self.max_k, self.threshold)
        return (n >= self.min_k) & (n < self.max_k) & (change <= self.delta)
