"""Label gold's stop rule: the change probability against an enumeration with scipy's Dirichlet-multinomial, the
prior's fit against a direct maximisation of scipy's likelihood, and the rule's error rate in simulation with known
label shares at several deltas (it stays at or below delta, within the simulation's binomial interval)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from scoring.adaptive import (
    OPEN,
    STABLE,
    LabelStopRule,
    StopRule,
    allocation_priority,
    fit_dirichlet_prior,
    item_states_and_priority,
    label_change_probability,
    label_power,
    majority_labels,
    unit_states,
)
from scoring.breakdown import gold_labels


def enumerated_change(counts, alpha, max_k, threshold):
    """P(majority at max_k != majority now) by summing scipy's DM(R, alpha + c) pmf over every outcome."""
    from scipy import stats

    counts = np.asarray(counts)
    remaining = max_k - int(counts.sum())
    now = gold_labels([counts], threshold)[0] if counts.sum() else 0
    total = 0.0
    for rest in itertools.product(range(remaining + 1), repeat=len(counts)):
        if sum(rest) != remaining:
            continue
        final = counts + np.array(rest)
        if gold_labels([final], threshold)[0] != now:
            total += stats.dirichlet_multinomial.pmf(rest, np.asarray(alpha) + counts, remaining)
    return total


@pytest.mark.parametrize("threshold", [0.0, 1 / 3, 0.5])
def test_change_probability_is_the_enumerated_one_for_two_and_three_labels(threshold):
    rng = np.random.default_rng(11)
    for _ in range(60):
        n_labels = int(rng.integers(2, 4))
        max_k = int(rng.integers(1, 14))
        alpha = rng.uniform(0.1, 4.0, n_labels)
        counts = rng.multinomial(int(rng.integers(0, max_k + 1)), rng.dirichlet(np.ones(n_labels)))
        got = label_change_probability([counts], alpha, max_k, threshold)[0]
        assert got == pytest.approx(enumerated_change(counts, alpha, max_k, threshold), abs=1e-10), (counts, max_k)


@pytest.mark.parametrize("threshold", [0.0, 0.4])
def test_change_probability_bounds_the_enumerated_one_for_more_labels(threshold):
    rng = np.random.default_rng(12)
    for _ in range(30):
        n_labels = int(rng.integers(4, 6))
        max_k = int(rng.integers(2, 9))
        alpha = rng.uniform(0.2, 3.0, n_labels)
        counts = rng.multinomial(int(rng.integers(0, max_k + 1)), rng.dirichlet(np.ones(n_labels)))
        exact = enumerated_change(counts, alpha, max_k, threshold)
        got = label_change_probability([counts], alpha, max_k, threshold)[0]
        assert exact - 1e-12 <= got <= 1.0
    # a clear leader: the bound is tight where the rule decides
    clear = label_change_probability([[9, 1, 0, 0]], [1, 1, 1, 1], 14)[0]
    assert clear == pytest.approx(enumerated_change([9, 1, 0, 0], [1, 1, 1, 1], 14, 0.0), rel=0.05)


def test_change_probability_edge_cases():
    # at or past K_max nothing changes; vectorised rows equal rows one at a time; bad input says what is wrong
    assert label_change_probability([[3, 0], [2, 2], [5, 1]], [1, 1], 4).tolist()[1:] == [0.0, 0.0]
    rows = np.array([[0, 0, 0], [1, 0, 0], [4, 2, 1], [2, 2, 2]])
    together = label_change_probability(rows, [0.7, 1.2, 2.0], 20)
    apart = [label_change_probability(row[None, :], [0.7, 1.2, 2.0], 20)[0] for row in rows]
    assert together == pytest.approx(apart, abs=1e-14)
    with pytest.raises(ValueError, match="alpha must be 3 positive"):
        label_change_probability(rows, [1, 1], 20)
    with pytest.raises(ValueError, match="threshold"):
        label_change_probability(rows, [1, 1, 1], 20, threshold=1.5)
    assert majority_labels([[0, 0, 0], [1, 3, 3]]).tolist() == [0, 1]


def test_the_posterior_can_be_given_other_evidence_than_the_counts():
    """Two labels at 2-2 of 10, prior Beta(1, 1), but evidence 3-1 (the second label's two votes from annotators who
    over-use it): the first label loses when the second gets 4 or more of the 6 to come, the second's share now
    Beta(1 + 1, 1 + 3), so its count is beta-binomial (scipy); evidence equal to the counts changes nothing."""
    from scipy import stats

    counts = np.array([[2.0, 2.0], [4.0, 1.0]])
    evidence = np.array([[3.0, 1.0], [4.0, 1.0]])
    found = label_change_probability(counts, [1, 1], 10, evidence=evidence)
    assert found[0] == pytest.approx(stats.betabinom(6, 2, 4).sf(3), abs=1e-12)
    assert found[1] == pytest.approx(label_change_probability(counts[1:], [1, 1], 10)[0], abs=1e-14)
    assert label_change_probability(counts, [1, 1], 10, evidence=counts) == pytest.approx(
        label_change_probability(counts, [1, 1], 10), abs=1e-14
    )
    # four labels (the union bound) take the evidence too: more weight on the leader settles it sooner
    four = np.array([[3.0, 2.0, 1.0, 0.0]])
    sharper = label_change_probability(four, [1, 1, 1, 1], 12, evidence=[[4.0, 1.0, 1.0, 0.0]])
    assert sharper < label_change_probability(four, [1, 1, 1, 1], 12)
    with pytest.raises(ValueError, match="evidence must have the counts' shape"):
        label_change_probability(counts, [1, 1], 10, evidence=[[1.0, 1.0]])


def test_the_prior_is_the_maximum_of_scipys_dirichlet_multinomial_likelihood():
    from scipy import optimize, stats

    rng = np.random.default_rng(5)
    shares = rng.dirichlet([2.0, 1.0, 3.0], size=400)
    counts = np.array([rng.multinomial(int(rng.integers(2, 12)), p) for p in shares])
    fitted = fit_dirichlet_prior(counts)

    def minus_loglik(log_alpha):
        alpha = np.exp(log_alpha)
        return -stats.dirichlet_multinomial.logpmf(counts, alpha, counts.sum(axis=1)).sum()  # every unit at once

    best = optimize.minimize(minus_loglik, np.zeros(3), method="Nelder-Mead", options={"xatol": 1e-6, "fatol": 1e-8})
    assert fitted == pytest.approx(np.exp(best.x), rel=1e-3)
    assert fitted == pytest.approx([2.0, 1.0, 3.0], rel=0.35)  # and near the truth


def test_the_prior_falls_back_to_uniform_on_a_small_pilot_and_is_kept_in_bounds():
    assert fit_dirichlet_prior([[2, 1, 0]] * 5).tolist() == [1.0, 1.0, 1.0]
    assert (fit_dirichlet_prior([[4, 0], [0, 4]] * 20) >= 0.05).all()  # shares at both ends: small, not zero
    assert fit_dirichlet_prior([[5, 5]] * 40).sum() <= 1000.0 + 1e-9  # no spread at all: capped


def simulate(alpha, rule, n_units, seed, fitted_from_pilot=False):
    """Units with shares p ~ Dirichlet(alpha) and max_k labels each; the rule stops them; errors against max_k."""
    rng = np.random.default_rng(seed)
    shares = rng.dirichlet(alpha, size=n_units)
    labels = (rng.random((n_units, rule.max_k, 1)) > np.cumsum(shares, axis=1)[:, None, :]).sum(axis=2)
    cumulative = np.cumsum(labels[:, :, None] == np.arange(len(alpha)), axis=1).astype(float)
    if fitted_from_pilot:  # the prior a project would fit: every unit's first 5 labels
        rule = LabelStopRule(
            rule.delta, rule.min_k, rule.max_k, rule.threshold, tuple(fit_dirichlet_prior(cumulative[:, 4]))
        )
    taken = np.full(n_units, rule.max_k)
    open_ = np.ones(n_units, dtype=bool)
    for n in range(rule.min_k, rule.max_k):
        stable = np.zeros(n_units, dtype=bool)
        stable[open_] = rule.units_stable(cumulative[open_, n - 1])
        taken[stable] = n
        open_ &= ~stable
    stopped = cumulative[np.arange(n_units), taken - 1]
    errors = int((majority_labels(stopped, rule.threshold) != majority_labels(cumulative[:, -1], rule.threshold)).sum())
    return errors, taken


SHARES = {  # label shares across units, as Dirichlet priors
    "dbdc-en-like": (4.0, 3.7, 4.5),
    "dbdc-ja-like": (0.9, 0.7, 1.0),
    "yes-no": (3.0, 2.0),
    "lopsided": (8.0, 1.0, 1.0),
}


@pytest.mark.parametrize("delta", [0.01, 0.05, 0.1])
@pytest.mark.parametrize("shares", list(SHARES))
def test_the_error_rate_stays_at_or_below_delta_when_the_prior_is_known(delta, shares):
    """Given units drawn from the prior the rule uses, the share whose stopped label differs from the label of
    max_k is at most delta: a one-sided binomial test at 0.1 % never rejects it."""
    from scipy import stats

    alpha = SHARES[shares]
    rule = LabelStopRule(delta=delta, min_k=3, max_k=20, alpha=alpha)
    n_units = 3000
    errors, taken = simulate(alpha, rule, n_units, seed=int(delta * 1000) + 17 * list(SHARES).index(shares))
    assert stats.binomtest(errors, n_units, delta, alternative="greater").pvalue > 0.001, errors / n_units
    assert taken.mean() < rule.max_k  # and it stops early at all


@pytest.mark.parametrize("shares", ["dbdc-en-like", "yes-no"])
def test_the_error_rate_holds_with_the_prior_fitted_to_a_pilot_and_falls_with_delta(shares):
    from scipy import stats

    alpha = SHARES[shares]
    found = {}
    for delta in (0.02, 0.1):
        rule = LabelStopRule(delta=delta, min_k=3, max_k=20)
        errors, taken = simulate(alpha, rule, 3000, seed=7, fitted_from_pilot=True)
        assert stats.binomtest(errors, 3000, delta, alternative="greater").pvalue > 0.001, errors / 3000
        found[delta] = (errors, taken.mean())
    assert found[0.02][0] < found[0.1][0] and found[0.02][1] > found[0.1][1]  # fewer errors for more labels


def test_a_rule_without_a_prior_fits_it_to_the_counts_it_is_bound_to():
    counts = np.array([[3, 0, 0], [0, 3, 0], [1, 1, 1]] * 10)
    bound = LabelStopRule(delta=0.05, min_k=3, max_k=10).bound(counts)
    assert bound.alpha == pytest.approx(tuple(fit_dirichlet_prior(counts)))
    assert bound.bound(counts[:3]) is bound  # a bound rule keeps its prior


def test_items_mix_label_and_distribution_gold_and_label_units_go_least_settled_first():
    label = LabelStopRule(delta=0.05, min_k=2, max_k=10, alpha=(1.0, 1.0))
    distribution = StopRule("expected_change", threshold=0.0, min_k=2, max_k=10)
    counts = {"winner": [[6, 0], [3, 2], [9, 0], [1, 1]], "rating": [[2, 0, 0]] * 4}
    rules = {"winner": label, "rating": distribution}
    # the rating never settles at threshold 0: every item stays open, ordered by its least settled unit
    states, priority = item_states_and_priority(counts, rules)
    assert states.tolist() == [OPEN] * 4
    assert priority.tolist() == allocation_priority(counts, rules).tolist()
    change = label_change_probability(counts["winner"], (1.0, 1.0), 10)
    assert np.argsort(-priority).tolist()[:2] == [3, 1]  # 1 to 1, then 3 to 2: the least settled labels
    assert priority[3] == pytest.approx(change[3])
    # label gold alone: the clear units are stable, the split ones open
    assert unit_states({"winner": counts["winner"]}, label).tolist() == [STABLE, OPEN, STABLE, OPEN]
    with pytest.raises(ValueError, match="no stop rule for criterion 'rating'"):
        unit_states(counts, {"winner": label})


def test_label_power_matches_a_direct_simulation_of_the_rule():
    pilot = np.random.default_rng(3).multinomial(5, [0.5, 0.3, 0.2], size=300)
    alpha = fit_dirichlet_prior(pilot)
    rows = label_power(pilot, max_k=20, deltas=[0.02, 0.1], n_units=3000, units_per_item=5, seed=1)
    for row in rows:
        _errors, taken = simulate(alpha, LabelStopRule(row["delta"], 3, 20, 0.0, tuple(alpha)), 3000, seed=2)
        assert row["labels_per_unit"] == pytest.approx(taken.mean(), rel=0.05)
        assert row["error_rate"] <= row["delta"] + 3 * np.sqrt(row["delta"] / 3000)
        assert row["expected_error"] <= row["delta"]
        # an item (5 units labelled together) stops with its last unit: more labels than a unit alone
        assert row["labels_per_unit"] < row["labels_per_item"] <= 20
        assert row["saving"] == pytest.approx(1 - row["labels_per_item"] / 20)
