"""The judge measures of scoring.judges against independent computations: scikit-learn's weighted kappa,
scipy's rank correlations and t-test, the krippendorff package, statsmodels' Benjamini-Yekutieli, a
plain-loop alt-test written from the paper's definitions, and PPI coverage by simulation."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.judges import alt_test, benjamini_yekutieli, calibration, classical_mean, judge_agreement, ppi_mean
from scoring.judges.agreement import human_means, majority_labels
from scoring.judges.bias import verbosity_bias
from scoring.judges.calibration import brier_score, expected_calibration_error
from scoring.judges.tables import kendall_of_tables, spearman_of_tables, table_resamples


def _panel(seed: int, n_items: int = 120, n_humans: int = 5, n_values: int = 5, noise: float = 1.0):
    """Humans and a judge rating items with a latent true score plus noise, on a 0..V-1 scale."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, n_values - 1, n_items)
    ratings = np.clip(np.rint(truth[None, :] + rng.normal(0, noise, (n_humans, n_items))), 0, n_values - 1)
    judge = np.clip(np.rint(truth + rng.normal(0, noise, n_items)), 0, n_values - 1).astype(int)
    unit = np.tile(np.arange(n_items), n_humans)
    annotator = np.repeat(np.arange(n_humans), n_items)
    value = ratings.ravel().astype(int)
    counts = np.zeros((n_items, n_values), dtype=int)
    np.add.at(counts, (unit, value), 1)
    return ratings, counts, judge, unit, annotator, value


@pytest.mark.parametrize("seed", [1, 2])
def test_kappa_alpha_and_rank_correlations_match_sklearn_krippendorff_scipy(seed):
    import krippendorff
    from scipy import stats
    from sklearn.metrics import cohen_kappa_score

    ratings, counts, judge, *_ = _panel(seed)
    result = judge_agreement(counts, judge, ordered=True, level="ordinal", resamples=300, key=f"t{seed}")
    majority = majority_labels(counts)
    assert result.kappa.value == pytest.approx(cohen_kappa_score(judge, majority))
    assert result.kappa_linear.value == pytest.approx(cohen_kappa_score(judge, majority, weights="linear"))
    assert result.kappa_quadratic.value == pytest.approx(cohen_kappa_score(judge, majority, weights="quadratic"))
    means = human_means(counts)
    assert result.spearman.value == pytest.approx(stats.spearmanr(judge, means).statistic)
    assert result.kendall.value == pytest.approx(stats.kendalltau(judge, means).statistic)
    assert result.alpha_humans.value == pytest.approx(
        krippendorff.alpha(reliability_data=ratings, level_of_measurement="ordinal", value_domain=range(5))
    )
    with_judge = np.vstack([ratings, judge[None, :]])
    assert result.alpha_with_judge.value == pytest.approx(
        krippendorff.alpha(reliability_data=with_judge, level_of_measurement="ordinal", value_domain=range(5))
    )
    for figure in (result.kappa, result.kappa_quadratic, result.spearman, result.kendall, result.alpha_humans):
        assert figure.interval.method == "bootstrap"
        assert figure.interval.low < figure.value < figure.interval.high


def test_resampled_tables_are_resamples_of_items():
    """Every bootstrap table holds n items, and its statistic equals scipy's on the items it stands for."""
    from scipy import stats

    rng = np.random.default_rng(5)
    x, y = rng.integers(0, 4, 80), rng.integers(0, 3, 80)
    t = table_resamples(x, y, 4, 3, seed=3, resamples=20)
    assert (t.resampled.sum(axis=(1, 2)) == 80).all()
    for table in t.resampled[:5]:
        xs, ys = np.nonzero(table)
        xx, yy = np.repeat(xs, table[xs, ys]), np.repeat(ys, table[xs, ys])
        assert spearman_of_tables(table[None])[0] == pytest.approx(stats.spearmanr(xx, yy).statistic)
        assert kendall_of_tables(table[None])[0] == pytest.approx(stats.kendalltau(xx, yy).statistic)


def _alt_test_by_loops(humans: dict, judge: dict, scoring: str, epsilon: float, q: float = 0.05) -> tuple:
    """The alt-test item by item from the paper's definitions (section 3), with statsmodels' BY."""

    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    def align(pred, others):
        if scoring == "accuracy":
            return float(np.mean([pred == o for o in others]))
        return -float(np.sqrt(np.mean([(pred - o) ** 2 for o in others])))

    p_values, rhos = [], []
    for j, own in humans.items():
        w_f, w_h = [], []
        for item, label in own.items():
            others = [humans[k][item] for k in humans if k != j and item in humans[k]]
            if not others or item not in judge:
                continue
            s_f, s_h = align(judge[item], others), align(label, others)
            w_f.append(float(s_f >= s_h))
            w_h.append(float(s_h >= s_f))
        d = np.array(w_h) - np.array(w_f)
        p_values.append(stats.ttest_1samp(d, epsilon, alternative="less").pvalue)
        rhos.append(np.mean(w_f))
    rejected = multipletests(p_values, alpha=q, method="fdr_by")[0]
    return float(np.mean(rejected)), float(np.mean(rhos)), np.array(p_values)


@pytest.mark.parametrize(("scoring", "noise", "epsilon"), [("accuracy", 0.8, 0.2), ("neg_rmse", 0.7, 0.1)])
def test_alt_test_matches_the_papers_definitions_item_by_item(scoring, noise, epsilon):
    ratings, _counts, judge, unit, annotator, value = _panel(7, n_items=60, n_humans=6, noise=noise)
    humans = {a: {u: int(ratings[a, u]) for u in range(60) if (a + u) % 5} for a in range(6)}  # some missing
    keep = np.array([(a + u) % 5 != 0 for a, u in zip(annotator, unit)])
    result = alt_test(unit[keep], annotator[keep], value[keep], judge, n_values=5, scoring=scoring, epsilon=epsilon)
    winning, rho, p_values = _alt_test_by_loops(humans, dict(enumerate(judge.tolist())), scoring, epsilon)
    assert [r["p_value"] for r in result.per_annotator] == pytest.approx(p_values.tolist())
    assert result.winning_rate == pytest.approx(winning)
    assert result.rho == pytest.approx(rho)
    assert result.passed == (winning >= 0.5)


def test_alt_test_a_copy_of_the_consensus_passes_and_a_random_judge_fails():
    rng = np.random.default_rng(11)
    _ratings, counts, _judge, unit, annotator, value = _panel(3, n_items=200, n_humans=5, noise=0.9)
    oracle = majority_labels(counts)
    good = alt_test(unit, annotator, value, oracle, n_values=5)
    bad = alt_test(unit, annotator, value, rng.integers(0, 5, 200), n_values=5)
    assert good.passed and good.winning_rate == 1.0 and good.rho > 0.8
    assert not bad.passed and bad.winning_rate == 0.0 and bad.rho < good.rho


def test_alt_test_skips_annotators_with_fewer_than_30_items():
    _ratings, _counts, judge, unit, annotator, value = _panel(4, n_items=40, n_humans=3)
    keep = ~((annotator == 2) & (unit >= 20))
    result = alt_test(unit[keep], annotator[keep], value[keep], judge, n_values=5)
    assert result.skipped == [2] and [r["annotator"] for r in result.per_annotator] == [0, 1]


def test_benjamini_yekutieli_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    for _ in range(50):
        p = rng.uniform(0, 0.05, rng.integers(1, 25)) ** rng.uniform(0.5, 2)
        assert benjamini_yekutieli(p, 0.05).tolist() == multipletests(p, alpha=0.05, method="fdr_by")[0].tolist()


def test_ece_brier_and_reliability_by_hand():
    probabilities = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.45, 0.55]])
    counts = np.array([[3, 0], [0, 3], [1, 2], [2, 1]])
    c = calibration(counts, probabilities, ordered=False, bins=10)
    # predictions 0, 0, 1, 1; majority 0, 1, 1, 0; confidences 0.9, 0.8, 0.7, 0.55 each alone in its bin
    assert c.ece == pytest.approx((0.1 + 0.8 + 0.3 + 0.55) / 4)
    assert c.ece == pytest.approx(expected_calibration_error([0.9, 0.8, 0.7, 0.55], [1, 0, 1, 0]))
    one_hot = np.eye(2)[[0, 1, 1, 0]]
    assert c.brier == pytest.approx(((probabilities - one_hot) ** 2).sum(axis=1).mean())
    assert brier_score(probabilities, [0, 1, 1, 0]) == pytest.approx(c.brier)
    assert [b["count"] for b in c.bins] == [0, 0, 0, 0, 0, 1, 1, 1, 1, 0]
    assert c.distance["jsd"] > 0 and "nmd" not in c.distance


def test_a_judge_reporting_the_human_shares_is_at_distance_zero():
    counts = np.array([[2, 1, 0], [0, 3, 0], [1, 1, 1]])
    c = calibration(counts, counts / counts.sum(axis=1, keepdims=True), ordered=True)
    assert c.distance["jsd"] == pytest.approx(0, abs=1e-12)
    assert c.distance["nmd"] == pytest.approx(0, abs=1e-12)


def test_ppi_covers_the_true_mean_at_the_nominal_rate():
    """2,000 simulated studies: the PPI and the classical 95% intervals each cover the truth 92-98% of the
    time, and a good judge narrows the interval."""
    rng = np.random.default_rng(2023)
    truth, covered_pp, covered_classical, ratios = 0.6, 0, 0, []
    trials = 2000
    for _ in range(trials):
        y_all = rng.binomial(1, truth, 2000).astype(float)
        f_all = np.clip(y_all * 0.7 + 0.15 + rng.normal(0, 0.1, 2000), 0, 1)  # informative, biased judge
        n = 100
        pp = ppi_mean(y_all[:n], f_all[:n], f_all[n:])
        classical = classical_mean(y_all[:n])
        covered_pp += pp.low <= truth <= pp.high
        covered_classical += classical.low <= truth <= classical.high
        ratios.append(pp.width / classical.width)
    assert abs(covered_pp / trials - 0.95) <= 0.03
    assert abs(covered_classical / trials - 0.95) <= 0.03
    assert np.mean(ratios) < 0.6


def test_ppi_with_a_random_judge_stays_unbiased_and_does_not_narrow():
    rng = np.random.default_rng(9)
    covered, ratios = 0, []
    for _ in range(1000):
        y = rng.binomial(1, 0.3, 1100).astype(float)
        f = rng.uniform(0, 1, 1100)
        pp, classical = ppi_mean(y[:100], f[:100], f[100:]), classical_mean(y[:100])
        covered += pp.low <= 0.3 <= pp.high
        ratios.append(pp.width / classical.width)
    assert abs(covered / 1000 - 0.95) <= 0.03
    assert np.mean(ratios) > 1.0


def test_verbosity_coefficient_matches_least_squares():
    rng = np.random.default_rng(1)
    length = rng.integers(10, 500, 300).astype(float)
    human = rng.normal(3, 1, 300)
    judge = 0.8 * human + 0.3 * length / 100 + rng.normal(0, 0.5, 300)
    v = verbosity_bias(judge, human, length, resamples=300)
    coefficients = np.linalg.lstsq(np.column_stack([np.ones(300), length / 100, human]), judge, rcond=None)[0]
    assert v["per_100_characters"] == pytest.approx(coefficients[1])
    assert v["ci"][0] < coefficients[1] < v["ci"][1] and v["ci"][0] > 0
