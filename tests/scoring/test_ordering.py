"""Ordering measures: Gandhe & Traum (2008) Table 1 and random baselines, scipy, properties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.ordering import (
    balanced_permutation_sets,
    coherence_b23,
    count_constrained,
    enumerate_constrained,
    kendall_tau,
    ngram_preservation,
    random_baseline,
    sample_constrained,
)

# Gandhe & Traum (2008), Table 1: observed sequence, b2, b3, tau (reference [0..9]); two decimals
TABLE1 = [
    ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 1.00, 1.00, 1.00),
    ([8, 9, 0, 1, 2, 3, 4, 5, 6, 7], 0.89, 0.75, 0.29),
    ([4, 1, 0, 3, 2, 5, 8, 7, 6, 9], 0.00, 0.00, 0.60),
    ([6, 9, 8, 5, 4, 7, 0, 3, 2, 1], 0.00, 0.00, -0.64),
    ([2, 3, 0, 1, 4, 5, 8, 9, 6, 7], 0.56, 0.00, 0.64),
]


@pytest.mark.parametrize("order, b2, b3, tau", TABLE1)
def test_gandhe_table1(order, b2, b3, tau):
    assert round(ngram_preservation(order, 2), 2) == b2
    assert round(ngram_preservation(order, 3), 2) == b3
    assert round(kendall_tau(order), 2) == tau


def test_gandhe_random_baselines_over_the_14400_orders():
    # "For tau random performance is 0.02 and for (b2 + b3)/2 it is 0.11", over all 14,400 orders
    speakers = "ABABABABAB"
    assert count_constrained(speakers) == 14400 == len(enumerate_constrained(speakers))
    baseline = random_baseline(speakers)
    assert baseline.method == "enumerate"
    assert round(baseline.tau, 2) == 0.02 and round(baseline.b23, 2) == 0.11


@pytest.mark.parametrize("speakers", ["AB", "ABA", "ABAB", "ABABA", "ABABABAB", "ABABABABABA", "AABBAB", "ABBA"])
def test_closed_form_expectations_equal_enumeration(speakers):
    exact = random_baseline(speakers, method="exact")
    enumerated = random_baseline(speakers, method="enumerate")
    assert exact.tau == pytest.approx(enumerated.tau, abs=1e-12)
    assert exact.b2 == pytest.approx(enumerated.b2, abs=1e-12)
    assert exact.b23 == pytest.approx(enumerated.b23, abs=1e-12)


def test_monte_carlo_agrees_within_its_standard_error():
    speakers = "AB" * 10
    exact = random_baseline(speakers)
    assert exact.method == "exact"
    mc = random_baseline(speakers, method="monte_carlo", samples=40_000, seed=3)
    assert mc.standard_error > 0
    assert abs(mc.b23 - exact.b23) < 5 * mc.standard_error


def test_constrained_orders_keep_first_speaker_and_alternate():
    speakers = list("ABABABAB")
    orders = sample_constrained(speakers, 500, seed=1)
    shown = np.array(speakers)[orders]
    assert (shown[:, 0::2] == "A").all() and (shown[:, 1::2] == "B").all()
    assert (np.sort(orders, axis=1) == np.arange(8)).all()
    # every one of the 4! x 4! = 576 orders is reachable: 20,000 uniform draws miss none
    assert len({tuple(o) for o in sample_constrained(speakers, 20_000, seed=2)}) == 576
    with pytest.raises(ValueError, match="strict alternation"):
        count_constrained("AAAB")
    with pytest.raises(ValueError, match="two speakers"):
        count_constrained("ABC")


@settings(max_examples=100, deadline=None)
@given(st.permutations(list(range(9))))
def test_tau_equals_scipy_and_measures_stay_in_range(order):
    from scipy.stats import kendalltau

    assert kendall_tau(order) == pytest.approx(kendalltau(np.arange(9), order).statistic, abs=1e-12)
    for n in (2, 3, 4):
        assert 0 <= ngram_preservation(order, n) <= 1
    assert 0 <= coherence_b23(order) <= 1
    assert kendall_tau(order[::-1]) == pytest.approx(-kendall_tau(order))


def test_bad_orders_are_rejected():
    with pytest.raises(ValueError, match="not a permutation"):
        kendall_tau([0, 0, 1])
    with pytest.raises(ValueError, match="n must be"):
        ngram_preservation([0, 1, 2], 4)


def test_balanced_sets_mix_good_and_bad_orders():
    dialogues = ["ABABABABAB"] * 9
    sets = balanced_permutation_sets(dialogues, m=3, seed=0)
    assert [len(s) for s in sets] == [9, 9, 9]
    # every set has each dialogue once
    assert all(sorted(d for d, _o in s) == list(range(9)) for s in sets)
    # no set is all good or all bad, and the sets' mean taus are close
    means = []
    for s in sets:
        taus = [kendall_tau(o) for _d, o in s]
        assert max(taus) - min(taus) > 0.5
        means.append(np.mean(taus))
    assert max(means) - min(means) < 0.1
    # same seed, same sets
    again = balanced_permutation_sets(dialogues, m=3, seed=0)
    assert all((a[1] == b[1]).all() for s, t in zip(sets, again) for a, b in zip(s, t))
