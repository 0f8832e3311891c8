"""Agreement statistics against statsmodels, krippendorff and scipy, plus degenerate cases."""

import numpy as np
import pytest

from scoring.agreement import (
    agreement_shares,
    annotator_z_scores,
    fleiss_kappa,
    krippendorff_alpha,
    krippendorff_alpha_from_counts,
    pearson_inter_rater,
    randolph_kappa,
    ratings_to_counts,
)


def random_counts(rng, units=300, raters=5, categories=4):
    labels = rng.integers(0, categories, size=(units, raters))
    bias = rng.integers(0, categories, size=units)
    labels = np.where(rng.random((units, raters)) < 0.5, bias[:, None], labels)
    return np.stack([(labels == c).sum(axis=1) for c in range(categories)], axis=1)


@pytest.mark.parametrize("seed", range(5))
def test_fleiss_and_randolph_equal_statsmodels(seed):
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    counts = random_counts(np.random.default_rng(seed))
    assert fleiss_kappa(counts) == pytest.approx(sm_fleiss(counts, method="fleiss"), abs=1e-9)
    assert randolph_kappa(counts) == pytest.approx(sm_fleiss(counts, method="randolph"), abs=1e-9)


def random_ratings(rng, annotators=6, units=80, missing=0.3, values=5):
    truth = rng.integers(1, values + 1, size=units)
    noise = rng.integers(-1, 2, size=(annotators, units))
    ratings = np.clip(truth + noise, 1, values).astype(float)
    ratings[rng.random((annotators, units)) < missing] = np.nan
    return ratings


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("seed", range(4))
def test_krippendorff_alpha_equals_the_krippendorff_package_with_missing_values(level, seed):
    from krippendorff import alpha as reference_alpha

    ratings = random_ratings(np.random.default_rng(seed))
    ours = krippendorff_alpha(ratings, level)
    assert ours == pytest.approx(reference_alpha(reliability_data=ratings, level_of_measurement=level), abs=1e-9)


def test_krippendorff_from_counts_with_unobserved_scale_values():
    # an unused value between used ones changes nothing for ordinal alpha
    counts, _values = ratings_to_counts(random_ratings(np.random.default_rng(9)))
    padded = np.insert(counts, 1, 0, axis=1)
    assert krippendorff_alpha_from_counts(padded, "ordinal") == pytest.approx(
        krippendorff_alpha_from_counts(counts, "ordinal")
    )


def test_pearson_inter_rater_equals_scipy_per_annotator():
    from scipy.stats import pearsonr

    ratings = random_ratings(np.random.default_rng(3), missing=0.2)
    result = pearson_inter_rater(ratings)
    for a in range(ratings.shape[0]):
        others = np.delete(ratings, a, axis=0)
        with np.errstate(invalid="ignore"):
            mean_others = np.nanmean(others, axis=0)
        use = ~np.isnan(ratings[a]) & ~np.isnan(mean_others)
        expected = pearsonr(ratings[a, use], mean_others[use])[0]
        assert result.per_annotator[a] == pytest.approx(expected, abs=1e-9)
    assert result.mean == pytest.approx(np.mean(result.per_annotator))
    assert result.std == pytest.approx(np.std(result.per_annotator, ddof=1))


def test_z_scores_remove_each_annotators_tendency():
    ratings = np.array([[1.0, 2, 3, np.nan], [3, 4, 5, 5]])
    z = annotator_z_scores(ratings)
    assert np.nanmean(z, axis=1) == pytest.approx([0, 0])
    assert np.nanstd(z, axis=1) == pytest.approx([1, 1])
    assert np.isnan(z[0, 3])
    assert np.isnan(annotator_z_scores([[2.0, 2.0]])).all()


def test_shares_follow_zeng_table2_definition():
    # three annotators: (1,1,0) -> 2+ agree; (1,1,1) -> all agree; (-1,0,1) -> neither
    counts = np.array([[0, 1, 2], [0, 0, 3], [1, 1, 1]])
    shares = agreement_shares(counts)
    assert (shares.agree_2plus, shares.agree_all) == pytest.approx((2 / 3, 1 / 3))


def test_degenerate_inputs():
    assert np.isnan(fleiss_kappa([[3, 0], [3, 0]]))  # one category used: chance agreement is 1
    with pytest.raises(ValueError, match="undefined"):
        fleiss_kappa([[3, 0], [3, 0]], on_undefined="raise")
    assert np.isnan(fleiss_kappa([[1, 0], [0, 1]]))  # one judgement per unit: nothing pairable
    assert np.isnan(krippendorff_alpha([[1.0, np.nan], [np.nan, 2.0]]))
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]], "interval") == 1.0
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha([[1, 2], [1, 2]], "cardinal")
    with pytest.raises(ValueError, match="cannot be negative"):
        fleiss_kappa([[-1, 2]])


# Fleiss (1971) as in the worked example of Fleiss' kappa (10 subjects, 14 raters, 5 categories): kappa 0.210
FLEISS_EXAMPLE = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]  # fmt: skip


def test_each_kappa_has_one_implementation_the_additive_sums_which_the_other_forms_call():
    """The per-unit form, the live figures' groups of sums and the resampled stack give the same kappa, the
    worked example's and statsmodels', because all three compute the sums and call the one function."""
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    from scoring.agreement.intervals import UnitResamples, fleiss_replicates, randolph_replicates, unit_resamples
    from scoring.agreement.sums import coefficients, fleiss_kappa_from_sums, unit_agreement, unit_terms

    counts = np.array(FLEISS_EXAMPLE)
    groups: dict = {}
    for row in counts:
        for key, n in unit_terms(row).items():
            groups.setdefault(int(row.sum()), {}).setdefault(key, 0)
            groups[int(row.sum())][key] += n
    live = coefficients(groups, 5)
    whole = unit_resamples(counts, seed=1, resamples=3)
    stacked = UnitResamples(whole.patterns, whole.multiplicity, whole.multiplicity[None, :], "bootstrap")
    direct = fleiss_kappa_from_sums(len(counts), unit_agreement(counts).sum(), counts.sum(axis=0))
    assert round(direct, 3) == 0.210
    assert direct == pytest.approx(sm_fleiss(counts, method="fleiss"), abs=1e-12)
    for form in (fleiss_kappa(counts), live["fleiss_kappa"], float(fleiss_replicates(stacked)[0])):
        assert form == pytest.approx(direct, abs=1e-12)
    randolph = sm_fleiss(counts, method="randolph")
    for form in (randolph_kappa(counts), live["randolph_kappa"], float(randolph_replicates(stacked)[0])):
        assert form == pytest.approx(randolph, abs=1e-12)


def test_alpha_of_a_stack_of_coincidence_matrices_is_each_matrix_alpha():
    """``alpha_from_coincidence`` is the one implementation of alpha: on a stack it gives each matrix's alpha."""
    from scoring.agreement.alpha import alpha_from_coincidence
    from scoring.agreement.intervals import coincidences

    rng = np.random.default_rng(7)
    stack = np.stack([coincidences(random_counts(rng, units=40)).sum(axis=0) for _ in range(4)])
    values = np.array([1.0, 2.0, 3.0, 5.0])
    for level in ("nominal", "ordinal", "interval", "ratio"):
        each = [alpha_from_coincidence(matrix, level, values) for matrix in stack]
        np.testing.assert_array_equal(alpha_from_coincidence(stack, level, values), each)
    with pytest.raises(ValueError, match="undefined"):
        alpha_from_coincidence(np.zeros((2, 2)), "nominal", [0, 1], on_undefined="raise")
