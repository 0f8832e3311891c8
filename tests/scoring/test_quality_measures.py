"""Cohen's kappa matrix, leave-one-out alpha, straight-lining, spammer score and the crowd-kit models,
checked against independent implementations (scikit-learn, the krippendorff package) and by their properties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.aggregation import METHODS, aggregate
from scoring.agreement import cohen_kappa_matrix, krippendorff_alpha_from_counts, krippendorff_alpha_leave_one_out
from scoring.reliability import answers_match, spammer_score, straight_lining


def long_form(x, missing):
    annotator, unit = np.nonzero(~missing)
    return unit, annotator, x[annotator, unit]


def correlated_labels(rng, annotators=5, units=60, values=4, missing=0.3):
    x = rng.integers(0, values, (annotators, units))
    for a in range(1, annotators):
        x[a] = np.where(rng.random(units) < 0.6, x[0], x[a])
    return x, rng.random(x.shape) < missing


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("seed", range(3))
def test_kappa_matrix_equals_sklearn_for_every_pair(seed, weights):
    # given labels of five annotators with missing values
    from sklearn.metrics import cohen_kappa_score

    x, missing = correlated_labels(np.random.default_rng(seed))
    unit, annotator, value = long_form(x, missing)
    # when the matrix is computed in one go
    m = cohen_kappa_matrix(unit, annotator, value, n_annotators=5, n_values=4, weights=weights)
    # then every pair equals scikit-learn's kappa on their shared units, and the matrix is symmetric
    for a in range(5):
        for b in range(5):
            both = ~missing[a] & ~missing[b]
            assert m.shared[a, b] == both.sum()
            if a != b:
                expected = cohen_kappa_score(x[a, both], x[b, both], weights=weights, labels=range(4))
                assert m.kappa[a, b] == pytest.approx(expected, abs=1e-12)
    assert np.allclose(m.kappa, m.kappa.T, equal_nan=True)
    assert np.all(np.diag(m.kappa) == 1)


def test_kappa_undefined_without_shared_units_or_variation():
    # annotator 2 shares no unit with the others; annotators 0 and 1 both give one value throughout
    m = cohen_kappa_matrix([0, 1, 0, 1, 2], [0, 0, 1, 1, 2], [1, 1, 1, 1, 0], n_annotators=3, n_values=2)
    assert np.isnan(m.kappa[0, 1]) and np.isnan(m.kappa[0, 2])
    assert m.shared[0, 2] == 0


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("seed", range(3))
def test_leave_one_out_alpha_equals_krippendorff_package_without_each_row(seed, level):
    # given a reliability matrix with missing values (and a unit judged by a single annotator)
    from krippendorff import alpha as reference_alpha

    rng = np.random.default_rng(seed)
    x, missing = correlated_labels(rng, annotators=6, units=50)
    missing[:, 0] = True
    missing[2, 0] = False
    scale = np.array([1.0, 2.0, 4.0, 7.0])
    unit, annotator, value = long_form(x, missing)
    # when every annotator is left out at once
    result = krippendorff_alpha_leave_one_out(unit, annotator, value, n_annotators=6, level=level, values=scale)
    # then each equals the krippendorff package on the matrix without that annotator's row
    numeric = np.where(missing, np.nan, scale[x])
    for a in range(6):
        rest = np.delete(numeric, a, axis=0)
        assert result.without[a] == pytest.approx(
            reference_alpha(rest, level_of_measurement=level, value_domain=scale), abs=1e-10
        )
    assert result.alpha == pytest.approx(
        reference_alpha(numeric, level_of_measurement=level, value_domain=scale), abs=1e-10
    )
    assert np.allclose(result.effect, result.alpha - result.without)


def test_leave_one_out_of_an_annotator_without_judgements_changes_nothing():
    counts_alpha = krippendorff_alpha_from_counts([[2, 0], [0, 2], [1, 1]])
    result = krippendorff_alpha_leave_one_out(
        [0, 1, 2, 0, 1, 2], [0, 0, 0, 1, 1, 1], [0, 1, 0, 0, 1, 1], n_annotators=3
    )
    assert result.alpha == pytest.approx(counts_alpha)
    assert result.without[2] == pytest.approx(result.alpha)
    assert np.isnan(result.without[0])  # one annotator left: no pairable unit


def test_answers_match_respects_tolerance_only_on_ordered_scales():
    assert answers_match([0, 2, 4], [2, 2, 2], tolerance=2, ordered=True).tolist() == [True, True, True]
    assert answers_match([0, 2, 4], [2, 2, 2], tolerance=1, ordered=True).tolist() == [False, True, False]
    assert answers_match([0, 2, 4], [2, 2, 2], tolerance=5, ordered=False).tolist() == [False, True, False]
    with pytest.raises(ValueError):
        answers_match([0], [0], tolerance=-1, ordered=True)


def test_straight_lining_needs_every_block_of_an_item_flat():
    # item 1: two blocks both flat; item 2: one flat, one not; item 3: single questions only
    result = straight_lining(
        [1, 1, 1, 1, 2, 2, 2, 2, 3, 3], [0, 0, 1, 1, 0, 0, 1, 1, 0, 1], [2, 2, 5, 5, 1, 1, 4, 5, 0, 0]
    )
    assert result.items.tolist() == [1, 2, 3]
    assert result.eligible.tolist() == [True, True, False]
    assert result.straight.tolist() == [True, False, False]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(0, 4)), max_size=60))
def test_straight_lining_equals_its_definition_question_by_question(rows):
    """Per item: eligible if some group holds two or more questions; straight-lined if every such group holds
    one value (checked with plain sets, item by item)."""
    result = straight_lining([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    by_item: dict[int, dict[int, list[int]]] = {}
    for item, group, value in rows:
        by_item.setdefault(item, {}).setdefault(group, []).append(value)
    assert result.items.tolist() == sorted(by_item)
    for i, item in enumerate(result.items.tolist()):
        blocks = [values for values in by_item[item].values() if len(values) >= 2]
        assert result.eligible[i] == bool(blocks)
        assert result.straight[i] == (bool(blocks) and all(len(set(values)) == 1 for values in blocks))


def test_spammer_score_ranges_and_permutation():
    perm = np.eye(3)[[2, 0, 1]]
    scores = spammer_score([np.eye(3), perm, np.full((3, 3), 1 / 3), [[0.8, 0.2, 0], [0.1, 0.8, 0.1], [0, 0.2, 0.8]]])
    assert scores[:3].tolist() == pytest.approx([1.0, 1.0, 0.0])
    assert 0 < scores[3] < 1


@pytest.mark.parametrize("method", METHODS)
def test_every_aggregation_gives_proper_distributions_and_ranks_a_spammer_last(method):
    # given five careful annotators and one answering at random
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 80)
    x = np.where(rng.random((6, 80)) < 0.85, truth, rng.integers(0, 3, (6, 80)))
    x[5] = rng.integers(0, 3, 80)
    unit, annotator, value = long_form(x, np.zeros(x.shape, dtype=bool))
    # when aggregated (one extra unit nobody judged, one value nobody gave)
    result = aggregate(unit, annotator, value, n_units=81, n_values=4, n_annotators=6, method=method)
    # then every judged unit has a distribution, the unjudged one none
    p = result.posteriors
    assert np.all(p[:80] >= 0) and np.allclose(p[:80].sum(axis=1), 1)
    assert np.isnan(p[80]).all()
    if method == "votes":
        assert np.isnan(result.reliability).all()
    else:
        assert np.argmin(result.reliability) == 5
        # the posterior's most likely label recovers the truth on most units
        assert (p[:80].argmax(axis=1) == truth).mean() > 0.9


@pytest.mark.parametrize("method", METHODS)
def test_an_aggregation_does_not_depend_on_the_order_the_judgements_come_in(method):
    # given judgements as one database returns them and as another does (PostgreSQL and SQLite differ)
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 3, 60)
    x = np.where(rng.random((8, 60)) < 0.7, truth, rng.integers(0, 3, (8, 60)))
    unit, annotator, value = long_form(x, np.zeros(x.shape, dtype=bool))
    shuffled = rng.permutation(len(unit))
    # when both are aggregated
    results = [
        aggregate(unit[o], annotator[o], value[o], n_units=60, n_values=3, n_annotators=8, method=method)
        for o in (np.arange(len(unit)), shuffled)
    ]
    # then the posteriors and reliabilities are the same (crowd-kit numbers workers in order of appearance)
    np.testing.assert_array_equal(results[0].posteriors, results[1].posteriors)
    np.testing.assert_array_equal(results[0].reliability, results[1].reliability)


def test_aggregate_refuses_unknown_methods_and_bad_indices():
    with pytest.raises(ValueError, match="method"):
        aggregate([0], [0], [0], n_units=1, n_values=2, n_annotators=1, method="majority")
    with pytest.raises(ValueError, match="out of range"):
        aggregate([0], [0], [2], n_units=1, n_values=2, n_annotators=1, method="votes")
