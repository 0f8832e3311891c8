"""Intervals on the agreement coefficients against independent computations on the same resamples, their
coverage by simulation, their reproducibility, and the switch to the jackknife when units are few.

The independent computations are the ``krippendorff`` package (alpha), statsmodels (Fleiss', Randolph's and
Cohen's kappa) and scikit-learn (Cohen's kappa on unit-level labels), called in a plain Python loop over the
resamples the library drew: each resample is rebuilt as its units (``UnitResamples.counts``, or a pair's
shared units as two label vectors), so the check covers both the batched arithmetic and the claim that
weights on patterns are resamples of units.
"""

import numpy as np
import pytest

from scoring.agreement import cohen_kappa_matrix, fleiss_kappa, krippendorff_alpha_from_counts, randolph_kappa
from scoring.agreement.intervals import (
    JACKKNIFE_BELOW,
    agreement_intervals,
    alpha_replicates,
    cohen_kappa_matrix_intervals,
    fleiss_kappa_interval,
    fleiss_replicates,
    krippendorff_alpha_interval,
    randolph_kappa_interval,
    randolph_replicates,
    seed_from,
    unit_resamples,
)

LEVELS = ("nominal", "ordinal", "interval")
SHARES = np.array([0.4, 0.3, 0.2, 0.1])  # the categories' population shares in the simulations


def simulated_labels(rng, *, units: int, raters: int, reliability: float, shares=SHARES) -> np.ndarray:
    """Labels (units x raters) where each rater reports the unit's true category with probability
    ``reliability`` and otherwise a draw from the same category shares, independently.

    Two labels of one unit then disagree with probability (1 - reliability^2) times that of two labels of
    different units, for any distance between categories, so the population value of Krippendorff's alpha
    (nominal, ordinal and interval alike), of Fleiss' kappa and of Cohen's kappa (unweighted or weighted) is
    reliability^2, and Randolph's kappa is (P_o - 1/k) / (1 - 1/k) with P_o = r^2 + (1 - r^2) sum_c p_c^2."""
    truth = rng.choice(len(shares), size=units, p=shares)
    noise = rng.choice(len(shares), size=(units, raters), p=shares)
    return np.where(rng.random((units, raters)) < reliability, truth[:, None], noise)


def as_counts(labels: np.ndarray, n_categories: int = len(SHARES)) -> np.ndarray:
    return np.stack([(labels == c).sum(axis=1) for c in range(n_categories)], axis=1)


def varying_counts(rng, units: int) -> np.ndarray:
    """Counts with 2 to 6 labels per unit (the bootstrap must weigh units by their pairable values)."""
    labels = simulated_labels(rng, units=units, raters=6, reliability=0.7)
    keep = np.arange(6)[None, :] < rng.integers(2, 7, size=units)[:, None]
    return as_counts(np.where(keep, labels, -1))


# -- the same resamples, computed independently ------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_bootstrap_equals_the_krippendorff_package_on_the_same_resamples(level):
    from krippendorff import alpha as reference_alpha

    counts = varying_counts(np.random.default_rng(1), units=120)
    values = np.array([1.0, 2.0, 4.0, 8.0])  # unequal steps: the interval metric must use them
    seed = seed_from(f"alpha-{level}")
    resamples = unit_resamples(counts, seed=seed, resamples=200)
    assert resamples.method == "bootstrap" and resamples.weights.shape == (200, len(resamples.patterns))
    ours = alpha_replicates(resamples, level, values if level == "interval" else None)
    domain = values if level == "interval" else np.arange(4)
    theirs = [
        reference_alpha(value_counts=resamples.counts(r), value_domain=domain, level_of_measurement=level)
        for r in range(200)
    ]
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)
    # the interval is the 2.5% and 97.5% quantiles of those replicates, the estimate alpha on all units
    alpha, ci = krippendorff_alpha_interval(counts, level, values if level == "interval" else None, seed=seed,
                                            resamples=200)  # fmt: skip
    assert alpha == pytest.approx(
        reference_alpha(value_counts=counts, value_domain=domain, level_of_measurement=level), abs=1e-9
    )
    assert [ci.low, ci.high] == pytest.approx(list(np.quantile(theirs, [0.025, 0.975])), abs=1e-9)
    assert (ci.method, ci.resamples) == ("bootstrap", 200)


def test_each_resample_is_a_draw_of_units_with_replacement():
    counts = varying_counts(np.random.default_rng(2), units=80)
    resamples = unit_resamples(counts, seed=5, resamples=2000)
    assert (resamples.weights.sum(axis=1) == 80).all()
    # every resample holds only units that exist, and on average each pattern as often as in the data
    rows = {tuple(row) for row in counts.tolist()}
    assert all(tuple(row) in rows for row in resamples.counts(0).tolist())
    f = resamples.multiplicity
    se = np.sqrt(f * (1 - f / 80) / 2000)  # a pattern's count in a resample is Binomial(80, f / 80)
    assert (np.abs(resamples.weights.mean(axis=0) - f) <= 4 * se).all()
    assert resamples.weights.var(axis=0, ddof=1) == pytest.approx(f * (1 - f / 80), rel=0.2)


def test_fleiss_and_randolph_bootstrap_equal_statsmodels_on_the_same_resamples():
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    counts = as_counts(simulated_labels(np.random.default_rng(3), units=150, raters=5, reliability=0.6))
    seed = seed_from("kappas")
    resamples = unit_resamples(counts, seed=seed, resamples=200)
    fleiss = [sm_fleiss(resamples.counts(r), method="fleiss") for r in range(200)]
    randolph = [sm_fleiss(resamples.counts(r), method="randolph") for r in range(200)]
    np.testing.assert_allclose(fleiss_replicates(resamples), fleiss, rtol=0, atol=1e-9)
    np.testing.assert_allclose(randolph_replicates(resamples), randolph, rtol=0, atol=1e-9)
    kappa, ci = fleiss_kappa_interval(counts, seed=seed, resamples=200)
    assert kappa == pytest.approx(fleiss_kappa(counts), abs=1e-12)
    assert [ci.low, ci.high] == pytest.approx(list(np.quantile(fleiss, [0.025, 0.975])), abs=1e-9)
    kappa, ci = randolph_kappa_interval(counts, seed=seed, resamples=200)
    assert kappa == pytest.approx(randolph_kappa(counts), abs=1e-12)
    assert [ci.low, ci.high] == pytest.approx(list(np.quantile(randolph, [0.025, 0.975])), abs=1e-9)


@pytest.mark.parametrize("weights", [None, "linear"])
def test_cohen_matrix_bootstrap_equals_statsmodels_and_sklearn_on_the_same_resamples(weights):
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import cohens_kappa as sm_cohen

    rng = np.random.default_rng(4)
    labels = simulated_labels(rng, units=90, raters=3, reliability=0.7)
    labels[rng.random(labels.shape) < 0.15] = -1  # some units not judged by everyone
    unit, annotator = np.nonzero(labels >= 0)
    value = labels[unit, annotator]
    m = cohen_kappa_matrix_intervals(unit, annotator, value, n_annotators=3, n_values=4, weights=weights, seed=9,
                                     resamples=150)  # fmt: skip
    plain = cohen_kappa_matrix(unit, annotator, value, n_annotators=3, n_values=4, weights=weights)
    np.testing.assert_allclose(m.kappa, plain.kappa, atol=1e-12)
    np.testing.assert_array_equal(m.shared, plain.shared)
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        r = m.pair_resamples[(a, b)]
        both = (labels[:, a] >= 0) & (labels[:, b] >= 0)
        # the patterns are the pair's shared units, one per cell of their confusion matrix
        cells = np.bincount(labels[both, a] * 4 + labels[both, b], minlength=16)
        np.testing.assert_array_equal((r.patterns * r.multiplicity[:, None]).sum(axis=0), cells)
        replicates = []
        for i in range(len(r.weights)):
            table = (r.weights[i] @ r.patterns).reshape(4, 4)
            first, second = np.nonzero(table)
            y1, y2 = np.repeat(first, table[first, second]), np.repeat(second, table[first, second])
            kappa = cohen_kappa_score(y1, y2, labels=range(4), weights=weights)
            with np.errstate(invalid="ignore", divide="ignore"):
                table_kappa = sm_cohen(table, wt=weights, return_results=False)
            assert kappa == pytest.approx(table_kappa, abs=1e-9)
            replicates.append(kappa)
        assert [m.low[a, b], m.high[a, b]] == pytest.approx(list(np.quantile(replicates, [0.025, 0.975])), abs=1e-9)
        assert m.method[a, b] == m.method[b, a] == "bootstrap"


def jackknife_by_hand(counts, coefficient):
    """Leave each unit out in turn, on the units themselves: (estimate, low, high) of the t interval."""
    from scipy import stats

    n = len(counts)
    theta = np.array([coefficient(np.delete(counts, i, axis=0)) for i in range(n)])
    se = np.sqrt((n - 1) / n * ((theta - theta.mean()) ** 2).sum())
    half = stats.t.ppf(0.975, n - 1) * se
    estimate = coefficient(counts)
    return estimate, estimate - half, min(estimate + half, 1.0)


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_jackknife_equals_leaving_each_unit_out_with_the_krippendorff_package(level):
    from krippendorff import alpha as reference_alpha

    counts = varying_counts(np.random.default_rng(6), units=JACKKNIFE_BELOW - 5)

    def alpha(c):
        return reference_alpha(value_counts=c, value_domain=np.arange(4), level_of_measurement=level)

    estimate, low, high = jackknife_by_hand(counts, alpha)
    ours, ci = krippendorff_alpha_interval(counts, level, seed=1)
    assert (ci.method, ci.resamples) == ("jackknife", JACKKNIFE_BELOW - 5)
    assert [ours, ci.low, ci.high] == pytest.approx([estimate, low, high], abs=1e-9)


def test_kappa_jackknife_equals_leaving_each_unit_out_with_statsmodels():
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    counts = as_counts(simulated_labels(np.random.default_rng(7), units=20, raters=4, reliability=0.6))
    for method, ours in (("fleiss", fleiss_kappa_interval), ("randolph", randolph_kappa_interval)):
        estimate, low, high = jackknife_by_hand(counts, lambda c, method=method: sm_fleiss(c, method=method))
        kappa, ci = ours(counts, seed=1)
        assert ci.method == "jackknife"
        assert [kappa, ci.low, ci.high] == pytest.approx([estimate, low, high], abs=1e-9)


def test_cohen_jackknife_for_a_pair_sharing_few_units():
    from statsmodels.stats.inter_rater import cohens_kappa as sm_cohen

    rng = np.random.default_rng(8)
    labels = simulated_labels(rng, units=60, raters=2, reliability=0.7)
    labels[:40, 1] = -1  # the pair shares 20 units
    unit, annotator = np.nonzero(labels >= 0)
    m = cohen_kappa_matrix_intervals(unit, annotator, labels[unit, annotator], n_annotators=2, n_values=4, seed=3)
    both = labels[40:]

    def kappa(rows):
        return sm_cohen(np.histogram2d(rows[:, 0], rows[:, 1], bins=[np.arange(5)] * 2)[0], return_results=False)

    estimate, low, high = jackknife_by_hand(both, kappa)
    assert m.method[0, 1] == "jackknife" and m.shared[0, 1] == 20
    assert [m.kappa[0, 1], m.low[0, 1], m.high[0, 1]] == pytest.approx([estimate, low, high], abs=1e-9)


# -- the switch and reproducibility ---------------------------------------------------------------------


def test_the_jackknife_below_thirty_pairable_units_the_bootstrap_from_thirty():
    rng = np.random.default_rng(9)
    counts = as_counts(simulated_labels(rng, units=JACKKNIFE_BELOW, raters=3, reliability=0.6))
    single = np.array([[1, 0, 0, 0]] * 10)  # units with one label are not pairable: they do not count
    assert krippendorff_alpha_interval(counts, seed=1)[1].method == "bootstrap"
    assert krippendorff_alpha_interval(np.vstack([counts[1:], single]), seed=1)[1].method == "jackknife"
    assert fleiss_kappa_interval(counts[1:], seed=1, jackknife_below=10)[1].method == "bootstrap"


def test_the_same_seed_gives_the_same_figures_and_another_key_other_draws():
    counts = varying_counts(np.random.default_rng(10), units=100)
    first = agreement_intervals(counts, seed=seed_from("A"), levels=LEVELS)
    again = agreement_intervals(counts.copy(), seed=seed_from("A"), levels=LEVELS)
    other = agreement_intervals(counts, seed=seed_from("S"), levels=LEVELS)
    assert first.krippendorff_alpha == again.krippendorff_alpha and first.fleiss_kappa == again.fleiss_kappa
    assert first.krippendorff_alpha["nominal"][0] == other.krippendorff_alpha["nominal"][0]
    assert first.krippendorff_alpha["nominal"][1] != other.krippendorff_alpha["nominal"][1]


def test_undefined_coefficients_have_no_interval():
    estimate, ci = fleiss_kappa_interval([[3, 0]] * 40, seed=1)  # one category throughout
    assert np.isnan(estimate) and np.isnan(ci.low) and np.isnan(ci.high)
    estimate, ci = krippendorff_alpha_interval(np.zeros((0, 3)), seed=1)
    assert np.isnan(estimate) and ci.method == "jackknife" and np.isnan(ci.low)


def test_the_batched_estimates_equal_the_coefficients():
    counts = varying_counts(np.random.default_rng(11), units=70)
    result = agreement_intervals(counts, seed=1, levels=LEVELS, values=[1, 2, 3, 5])
    assert result.fleiss_kappa[0] == pytest.approx(fleiss_kappa(counts), abs=1e-12)
    assert result.randolph_kappa[0] == pytest.approx(randolph_kappa(counts), abs=1e-12)
    for level in LEVELS:
        values = [1, 2, 3, 5] if level == "interval" else None
        expected = krippendorff_alpha_from_counts(counts, level, values)
        assert result.krippendorff_alpha[level][0] == pytest.approx(expected, abs=1e-12)


# -- coverage by simulation -------------------------------------------------------------------------------

SIMULATIONS = 600  # Monte Carlo standard error of a 95% coverage: 0.9 points


def test_bootstrap_intervals_cover_the_population_value_within_three_points_of_95_percent():
    """600 simulated collections of 150 units x 4 labels (and a pair of annotators over the same units), the
    population values known from the model (``simulated_labels``): each interval's coverage is 95% +- 3."""
    rng = np.random.default_rng(2007)
    reliability = np.sqrt(0.5)
    true = {"alpha": 0.5, "fleiss": 0.5, "cohen": 0.5}
    p_o = 0.5 + 0.5 * (SHARES**2).sum()
    true["randolph"] = (p_o - 0.25) / 0.75
    covered = dict.fromkeys(("nominal", "ordinal", "interval", "fleiss", "randolph", "cohen", "cohen_linear"), 0)
    for s in range(SIMULATIONS):
        labels = simulated_labels(rng, units=150, raters=4, reliability=reliability)
        result = agreement_intervals(as_counts(labels), seed=s, levels=LEVELS)
        for level in LEVELS:
            ci = result.krippendorff_alpha[level][1]
            covered[level] += ci.low <= true["alpha"] <= ci.high
        covered["fleiss"] += result.fleiss_kappa[1].low <= true["fleiss"] <= result.fleiss_kappa[1].high
        covered["randolph"] += result.randolph_kappa[1].low <= true["randolph"] <= result.randolph_kappa[1].high
        unit = np.repeat(np.arange(150), 2)
        annotator = np.tile([0, 1], 150)
        for key, weights in (("cohen", None), ("cohen_linear", "linear")):
            m = cohen_kappa_matrix_intervals(unit, annotator, labels[:, :2].reshape(-1), n_annotators=2,
                                             n_values=4, weights=weights, seed=s)  # fmt: skip
            covered[key] += m.low[0, 1] <= true["cohen"] <= m.high[0, 1]
    coverage = {k: v / SIMULATIONS for k, v in covered.items()}
    assert all(abs(c - 0.95) <= 0.03 for c in coverage.values()), str(coverage)
