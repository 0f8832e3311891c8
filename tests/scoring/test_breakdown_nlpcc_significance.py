"""Breakdown classification metrics, NLPCC aspect scores and significance tests."""

import numpy as np
import pytest

from scoring.breakdown import classification_metrics, gold_labels
from scoring.metric_names import TABLE1
from scoring.nlpcc import multi_turn_scores, single_turn_scores
from scoring.significance import (
    discriminative_power,
    paired_bootstrap,
    ranking_stability,
    tukey_hsd,
    tukey_hsd_loop,
)


def test_gold_label_majority_threshold_and_ties():
    counts = np.array([[10, 10, 10], [4, 13, 13], [20, 5, 5], [9, 11, 10]])
    assert gold_labels(counts).tolist() == [0, 1, 0, 1]  # ties go to NB, then PB
    assert gold_labels(counts, threshold=0.4).tolist() == [0, 1, 0, 0]  # 13/30 reaches 0.4; 11/30 does not
    assert gold_labels(counts, groups=[[0], [1, 2]]).tolist() == [1, 1, 0, 1]
    assert gold_labels(counts, groups=[[0, 1], [2]]).tolist() == [0, 0, 0, 0]


def straightforward_metrics(predicted, counts):
    """Loop version of Table 1's accuracy and F1 (threshold 0) to check the vectorised one."""
    out = {}
    maps = {"NB,PB,B": [0, 1, 2], "NB,PB+B": [0, 1, 1], "NB+PB,B": [0, 0, 1]}
    for name, mapping in maps.items():
        hits, weighted, total_w = 0, 0.0, 0.0
        for pred, row in zip(predicted, counts):
            merged = [0.0] * (max(mapping) + 1)
            for label, c in enumerate(row):
                merged[mapping[label]] += c
            gold = merged.index(max(merged))
            w = sum((c / sum(row)) ** 2 for c in row)
            ok = mapping[pred] == gold
            hits += ok
            weighted += ok * w
            total_w += w
        out[f"Accuracy({name})"] = hits / len(predicted)
        out[f"Accuracy+w({name})"] = weighted / total_w
    return out


def test_classification_metrics_against_a_loop():
    rng = np.random.default_rng(2)
    counts = rng.multinomial(30, [0.4, 0.3, 0.3], size=300)
    predicted = rng.integers(0, 3, size=300)
    ours = classification_metrics(predicted, counts)
    for name, value in straightforward_metrics(predicted, counts).items():
        assert ours[name] == pytest.approx(value, abs=1e-12), name
    # F1(B): B against the three-label majority (ties go to NB, then PB), as the DBDC3 script
    gold_b = (counts[:, 2] > counts[:, 0]) & (counts[:, 2] > counts[:, 1])
    pred_b = predicted == 2
    tp, fp, fn = (pred_b & gold_b).sum(), (pred_b & ~gold_b).sum(), (~pred_b & gold_b).sum()
    assert ours["Precision(B)"] == pytest.approx(tp / (tp + fp))
    assert ours["Recall(B)"] == pytest.approx(tp / (tp + fn))
    assert ours["F1(B)"] == pytest.approx(2 * tp / (2 * tp + fp + fn))
    assert {n for n in TABLE1 if not n.startswith(("JSD", "MSE"))} <= set(ours)
    assert len(TABLE1) == 22


def test_perfect_predictions():
    counts = np.array([[30, 0, 0], [0, 0, 30], [2, 25, 3]])
    metrics = classification_metrics([0, 2, 1], counts)
    assert metrics["Accuracy(NB,PB,B)"] == 1.0 and metrics["F1(B)"] == 1.0 and metrics["F1+w(PB+B)"] == 1.0


def test_nlpcc_single_and_multi_turn():
    aspects = {"not_ambiguous": "syntax", "emotion": "emotional_expression", "affecting": "emotional_expression"}
    scores = single_turn_scores(
        {"severe_error": [0, 3], "not_ambiguous": [3, 0], "emotion": [3, 3], "affecting": [0, 0]}, 3, aspects
    )
    assert scores["syntax"] == pytest.approx(50) and scores["emotional_expression"] == pytest.approx(50)
    assert scores["total"] == pytest.approx(100)
    # a perfect five-turn conversation earns the maximum 40 (Shan et al.: 2 x 4 x 5)
    assert multi_turn_scores([[2] * 5], [[2] * 5], [[1] * 5]).tolist() == [40.0]
    with pytest.raises(ValueError):
        multi_turn_scores([[3]], [[0]], [[0]])


def test_tukey_hsd_equals_the_loop_reference():
    x = np.random.default_rng(4).normal(size=(25, 4)) + np.array([0, 0.2, 0.6, 1.0])
    fast = tukey_hsd(x, trials=400, seed=9, chunk=37)
    slow = tukey_hsd_loop(x, trials=400, seed=9)
    assert np.allclose(fast, slow)
    # another seed: the same test up to Monte Carlo error
    other = tukey_hsd(x, trials=4000, seed=10)
    assert np.abs(other - slow).max() < 0.08
    assert np.allclose(fast, fast.T) and (np.diag(fast) == 1).all()


def test_tests_separate_different_runs_and_not_identical_ones():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(200, 1))
    x = np.hstack([base, base + 0.5, base + rng.normal(scale=0.01, size=(200, 1))])
    tukey, boot = tukey_hsd(x, 2000, 1), paired_bootstrap(x, 2000, 1)
    assert tukey[0, 1] < 0.01 and boot[0, 1] < 0.01
    assert tukey[0, 2] > 0.5
    assert discriminative_power(tukey) == pytest.approx(2 / 3)
    assert ranking_stability(x[:, :2], trials=100).mean_tau == 1.0


def test_bootstrap_is_not_fooled_by_two_items():
    x = np.array([[0.40, 0.43], [0.44, 0.43]])
    assert paired_bootstrap(x, 2000, 0)[0, 1] > 0.2
