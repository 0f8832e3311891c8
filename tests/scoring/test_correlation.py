"""Kendall's tau-b with its jackknife interval, against scipy and the percentile bootstrap."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import correlation
from scoring.correlation import correlate, kendall_tau_b_jackknife

small_samples = st.integers(3, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 6), min_size=n, max_size=n), st.lists(st.integers(0, 6), min_size=n, max_size=n)
    )
)


@settings(max_examples=200, deadline=None)
@given(small_samples)
def test_tau_b_and_every_delete_one_value_equal_scipy_with_ties(sample):
    from scipy import stats

    x, y = (np.array(v, dtype=float) for v in sample)
    tau, left_out = kendall_tau_b_jackknife(x, y)
    expected = stats.kendalltau(x, y).statistic
    assert (np.isnan(tau) and np.isnan(expected)) or tau == pytest.approx(expected, abs=1e-12)
    for i in range(len(x)):  # the reference: recompute tau without item i
        keep = np.arange(len(x)) != i
        again = stats.kendalltau(x[keep], y[keep]).statistic
        assert (np.isnan(left_out[i]) and np.isnan(again)) or left_out[i] == pytest.approx(again, abs=1e-12)


def test_the_interval_agrees_with_the_percentile_bootstrap():
    # given 400 dialogues whose measure is moderately related to three annotators' ratings
    from scipy import stats

    rng = np.random.default_rng(7)
    quality = rng.normal(size=400)
    measure = quality + rng.normal(scale=1.5, size=400)
    ratings = np.clip(np.round(quality + rng.normal(scale=1.0, size=(3, 400))), -2, 2)
    result = correlate(measure, ratings)
    # the reference: 2,000 bootstrap resamples of the dialogues, tau-b by scipy
    y = correlation.mean_z_scores(ratings)
    samples = rng.integers(0, 400, size=(2000, 400))
    boot = np.array([stats.kendalltau(measure[s], y[s]).statistic for s in samples])
    low, high = np.quantile(boot, [0.025, 0.975])
    assert result.tau == pytest.approx(stats.kendalltau(measure, y).statistic)
    assert result.ci_low == pytest.approx(low, abs=0.01) and result.ci_high == pytest.approx(high, abs=0.01)
    assert result.pearson == pytest.approx(stats.pearsonr(measure, y).statistic) and result.n == 400


def test_too_few_dialogues_and_clipping():
    with pytest.raises(ValueError, match="at least three"):
        correlate([1.0, 2.0], np.array([[1.0, 2.0]]))
    perfect = correlate([1.0, 2.0, 3.0, 4.0], np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 5.0]]))
    assert perfect.tau == pytest.approx(1.0) and perfect.ci_high <= 1.0 and perfect.ci_low <= 1.0


@pytest.mark.parametrize("n", [1, 2, 3, 17, 250])
@pytest.mark.parametrize("levels", [2, 5, None])
def test_concordance_per_item_equals_the_sum_over_all_pairs(n, levels):
    # given values with many ties (levels) or none, the O(n log n) counts equal the sum over every pair
    rng = np.random.default_rng(n * 7 + (levels or 0))
    x = rng.integers(0, levels, n).astype(float) if levels else rng.random(n)
    y = rng.integers(0, levels, n).astype(float) if levels else rng.random(n)
    pairs = (np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])).sum(axis=1)
    assert correlation.concordance_per_item(x, y).tolist() == pairs.tolist()
