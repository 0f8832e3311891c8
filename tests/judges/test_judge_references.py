"""Reference judges of the alternative annotator test (scoring.judges.references): the references' tests equal
a plain-loop alt-test written from the paper's definitions (tests/judges/test_judge_measures.py), the paired
comparison equals scipy's paired t-test, and the verdicts: a constant middle label on annotators who disagree
passes under the negative RMSE and is "not informative"; a judge copying the consensus of annotators who agree
passes and beats every trivial reference; the held-out human; the alignment chosen from the references alone;
speaker scales; the margin by who annotated."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.judges import alt_test
from scoring.judges.agreement import majority_labels
from scoring.judges.alt_test import ACCURACY, NEG_RMSE
from scoring.judges.references import (
    CONSTANT,
    EPSILON_BY_ANNOTATORS,
    HELD_OUT,
    NOT_INFORMATIVE,
    PASSED,
    RANDOM,
    alignment_choice,
    held_out_annotator,
    majority_kappa,
    reference_tests,
    rho_comparison,
    trivial_labels,
    verdict,
)
from tests.judges.test_judge_measures import _alt_test_by_loops, _panel


def _disagreeing(seed: int = 0, n_items: int = 80, n_humans: int = 8):
    """Annotators who answer an ordered 3-point scale at random: no agreement at all."""
    rng = np.random.default_rng(seed)
    unit = np.repeat(np.arange(n_items), n_humans)
    annotator = np.tile(np.arange(n_humans), n_items)
    return unit, annotator, rng.integers(0, 3, n_items * n_humans)


def test_the_margins_are_the_papers():
    # Calderon et al. 2025, FAQ "How do I select the epsilon value?"
    assert EPSILON_BY_ANNOTATORS == {"experts": 0.2, "skilled": 0.15, "crowd": 0.1}


@pytest.mark.parametrize("scoring", [ACCURACY, NEG_RMSE])
def test_each_reference_is_the_alt_test_of_its_labels(scoring):
    unit, annotator, value = _disagreeing(3)
    refs = reference_tests(unit, annotator, value, n_values=3, scoring=scoring, epsilon=0.1, seed=7)
    assert [r.kind for r in refs.references] == [CONSTANT, CONSTANT, CONSTANT, RANDOM, HELD_OUT]
    humans = {a: {} for a in range(8)}
    for u, a, v in zip(unit, annotator, value):
        humans[int(a)][int(u)] = int(v)
    for ref in refs.trivial:
        winning, rho, _p = _alt_test_by_loops(humans, dict(enumerate(ref.labels.tolist())), scoring, 0.1)
        assert ref.test.winning_rate == pytest.approx(winning) and ref.test.rho == pytest.approx(rho)
    held = refs.held_out
    assert held.values == (0,)  # every annotator judged every item: the first
    rest = {a: h for a, h in humans.items() if a != 0}
    winning, rho, _p = _alt_test_by_loops(rest, humans[0], scoring, 0.1)
    assert held.test.winning_rate == pytest.approx(winning) and held.test.rho == pytest.approx(rho)
    random = next(r for r in refs.trivial if r.kind == RANDOM)
    again = reference_tests(unit, annotator, value, n_values=3, scoring=scoring, epsilon=0.1, seed=7)
    assert random.labels.tolist() == next(r for r in again.trivial if r.kind == RANDOM).labels.tolist()


def test_a_constant_middle_label_passes_on_disagreeing_annotators_and_is_not_informative():
    unit, annotator, value = _disagreeing(0)
    refs = reference_tests(unit, annotator, value, n_values=3, scoring=NEG_RMSE, epsilon=0.2)
    best = refs.best_trivial
    assert best.kind == CONSTANT and best.values == (1,) and best.test.passed
    middle = alt_test(unit, annotator, value, np.ones(80, dtype=int), n_values=3, scoring=NEG_RMSE, epsilon=0.2)
    v = verdict(middle, refs)
    assert middle.passed and v.state == NOT_INFORMATIVE and v.trivial_passes
    assert v.against_best.difference == 0 and not v.against_best.beats
    # a held-out annotator does no better: the humans do not agree enough for the test to tell
    assert not refs.held_out_comparison().beats and refs.held_out_baseline.passed


def test_a_judge_copying_the_consensus_of_agreeing_annotators_passes_and_beats_the_references():
    _ratings, counts, _judge, unit, annotator, value = _panel(3, n_items=200, n_humans=5, noise=0.5)
    oracle = majority_labels(counts)
    for scoring in (ACCURACY, NEG_RMSE):
        refs = reference_tests(unit, annotator, value, n_values=5, scoring=scoring, epsilon=0.1)
        test = alt_test(unit, annotator, value, oracle, n_values=5, scoring=scoring, epsilon=0.1)
        v = verdict(test, refs)
        assert v.state == PASSED and v.against_best.beats and not v.trivial_passes
        assert refs.held_out is not None and refs.held_out.test.rho < test.rho


def test_the_paired_comparison_is_scipys_paired_t_test():
    from scipy import stats

    rng = np.random.default_rng(4)
    judge = dict(enumerate(rng.uniform(0.5, 0.9, 20)))
    reference = dict(enumerate(rng.uniform(0.45, 0.85, 20)))
    c = rho_comparison(judge, reference)
    expected = stats.ttest_rel(list(judge.values()), list(reference.values()), alternative="greater")
    assert c.p_value == pytest.approx(expected.pvalue) and c.n == 20
    assert c.beats == (expected.pvalue < 0.05)
    assert rho_comparison({0: 0.7}, {0: 0.6}).as_dict() == pytest.approx(
        {"difference": 0.1, "p_value": None, "annotators": 1, "beats": True}
    )
    assert rho_comparison({0: 0.7}, {1: 0.6}).beats is False  # no annotator in common


def test_the_alignment_is_chosen_from_the_references_and_never_from_the_judge():
    unit, annotator, value = _disagreeing(0)
    by_scoring = {
        s: reference_tests(unit, annotator, value, n_values=3, scoring=s, epsilon=0.2) for s in (NEG_RMSE, ACCURACY)
    }
    margin = {s: r.held_out.test.rho - r.best_trivial.test.rho for s, r in by_scoring.items()}
    chosen = alignment_choice(by_scoring, NEG_RMSE)
    assert margin[chosen] == max(margin.values()) and chosen == ACCURACY  # the middle label wins under RMSE


def test_trivial_labels_keep_to_each_speakers_scale():
    counts = np.array([[3, 1, 0, 0, 0], [0, 0, 2, 2, 0], [1, 2, 0, 0, 0], [0, 0, 1, 3, 0]])
    customer = np.array([True, False, True, False])
    scales = [(customer, [0, 1]), (~customer, [2, 3, 4])]
    refs = trivial_labels(counts, scales=scales, seed=1)
    constants = [(values, labels.tolist()) for kind, values, labels in refs if kind == CONSTANT]
    assert len(constants) == 6 and constants[0] == ((0, 2), [0, 2, 0, 2])
    drawn = next(labels for kind, _v, labels in refs if kind == RANDOM)
    assert set(drawn[customer]) <= {0, 1} and set(drawn[~customer]) <= {2, 3}  # 4 was never given


def test_held_out_annotator_and_majority_kappa():
    unit = np.array([0, 0, 0, 1, 1, 1, 1])
    annotator = np.array([0, 1, 2, 0, 1, 2, 3])
    assert held_out_annotator(unit, annotator, min_items=2) == 0
    assert held_out_annotator(unit, annotator, min_items=3) is None
    counts = np.array([[2, 1], [0, 3], [3, 0], [1, 2]])
    assert majority_kappa(counts, [0, 1, 0, 1]) == 1.0
    assert majority_kappa(counts, [0, 0, 0, 0]) == 0.0  # a constant agrees only by chance


def test_the_overall_verdict_combines_each_criterions_best_trivial_reference():
    from evaluation.judges.services.verdicts import CriterionTests, overall_verdict
    from scoring.judges import combined_alt_test

    _ratings, counts, _judge, unit, annotator, value = _panel(3, n_items=200, n_humans=5, noise=0.5)
    good = alt_test(unit, annotator, value, majority_labels(counts), n_values=5, epsilon=0.1)
    good_refs = reference_tests(unit, annotator, value, n_values=5, scoring=ACCURACY, epsilon=0.1)
    d_unit, d_annotator, d_value = _disagreeing(0)
    middle = alt_test(d_unit, d_annotator, d_value, np.ones(80, dtype=int), n_values=3, scoring=NEG_RMSE)
    middle_refs = reference_tests(d_unit, d_annotator, d_value, n_values=3, scoring=NEG_RMSE)
    by_criterion = {
        "good": CriterionTests(ACCURACY, ACCURACY, {ACCURACY: good}, {ACCURACY: good_refs}),
        "middle": CriterionTests(NEG_RMSE, NEG_RMSE, {NEG_RMSE: middle}, {NEG_RMSE: middle_refs}),
    }
    combined = combined_alt_test({key: t.test for key, t in by_criterion.items()})
    values = {"good": list("abcde"), "middle": ["NB", "PB", "B"]}
    names = {key: (lambda a: f"h{a}") for key in by_criterion}
    state, references = overall_verdict(by_criterion, combined, values, names)
    assert references["best_trivial"]["criteria"]["middle"]["label"] == "PB"
    assert references["trivial_passes"]  # always "PB" passes on the disagreeing criterion
    against = references["against_best"]
    assert against["annotators"] == 13 and against["difference"] > 0  # better on one criterion, equal on the other
    # over both criteria the judge beats the combined references (paired test over the 13 comparisons)
    assert against["beats"] and against["p_value"] < 0.05 and combined["passed"] and state == "passed"
    # on the disagreeing criterion alone, the same middle answer is not informative
    alone = {"middle": by_criterion["middle"]}
    state, _refs = overall_verdict(alone, combined_alt_test({"middle": middle}), values, names)
    assert state == "not_informative"
