"""Breakdown scoring as the DBDC3 evaluation script does it (library only, no database).

The reference is ``tests/reference_dbdc3_eval.py``, a Python 3 port of the script's
classification, JSD and MSE parts.
"""

import json

import numpy as np
import pytest

from scoring.breakdown import classification_metrics, gold_labels
from scoring.errors import InputError
from scoring.run_files import read_dbdc_gold, read_dbdc_run
from scoring.runs import dbdc_run_scores
from tests.fixtures.dbdc_runs import RUN_KINDS, file_pairs, log_files, write_run
from tests.reference_dbdc3_eval import OURS, evaluate


def hand_log(dialogue_id: str, turn_counts: list[tuple[int, int, int]]) -> dict:
    """A DBDC log: an unannotated opening prompt, then user and system turns with the given (O, T, X) counts."""
    turns = [{"turn-index": 0, "speaker": "S", "utterance": "hello", "annotations": []}]
    for counts in turn_counts:
        turns.append({"turn-index": len(turns), "speaker": "U", "utterance": "u", "annotations": []})
        labels = [lab for lab, c in zip("OTX", counts) for _ in range(c)]
        annotations = [{"annotator-id": f"a{i}", "breakdown": lab} for i, lab in enumerate(labels)]
        turns.append({"turn-index": len(turns), "speaker": "S", "utterance": "s", "annotations": annotations})
    return {"dialogue-id": dialogue_id, "turns": turns}


def labels_file(dialogue_id: str, rows: list[tuple[int, str, list[float]]]) -> dict:
    return {
        "dialogue-id": dialogue_id,
        "turns": [
            {"turn-index": t, "labels": [{"breakdown": b, "prob-O": p[0], "prob-T": p[1], "prob-X": p[2]}]}
            for t, b, p in rows
        ],
    }


# Turn 2: (3, 3, 4): B is the plurality (three-label gold label B) but NB+PB = 6 > 4.
# Turn 4: (8, 1, 1): gold NB. Turn 6: (2, 2, 6): gold B under both readings.
HAND_COUNTS = [(3, 3, 4), (8, 1, 1), (2, 2, 6)]


def test_f1_b_scores_b_against_the_three_label_majority_by_hand():
    counts = np.array(HAND_COUNTS)
    predicted = [2, 2, 0]  # B, B, NB
    m = classification_metrics(predicted, counts)
    # three-label gold labels B, NB, B: TP = turn 2, FP = turn 4, FN = turn 6
    assert gold_labels(counts).tolist() == [2, 0, 2]
    assert m["Precision(B)"] == pytest.approx(1 / 2) and m["Recall(B)"] == pytest.approx(1 / 2)
    assert m["F1(B)"] == pytest.approx(1 / 2)
    # the (NB+PB, B) reading would have had no true positive at all (gold B only on turn 6)
    assert gold_labels(counts, groups=[[0, 1], [2]]).tolist() == [0, 0, 1]
    # Simpson weights w = 0.34, 0.66, 0.44: P = 0.34 / (0.34 + 0.66), R = 0.34 / (0.34 + 0.44)
    p, r = 0.34 / 1.0, 0.34 / 0.78
    assert m["F1+w(B)"] == pytest.approx(2 * p * r / (p + r))
    # F1(PB+B) stays against the (NB, PB+B) gold label: PB+B on turns 2 and 6, NB on 4
    assert m["Precision(PB+B)"] == pytest.approx(1 / 2) and m["Recall(PB+B)"] == pytest.approx(1 / 2)


def test_the_hand_case_through_the_files_equals_the_official_script(tmp_path):
    logs_dir, run_dir = tmp_path / "logs", tmp_path / "run"
    logs_dir.mkdir()
    run_dir.mkdir()
    (logs_dir / "h.log.json").write_text(json.dumps(hand_log("h", HAND_COUNTS)))
    rows = [(2, "X", [0.2, 0.3, 0.5]), (4, "X", [0.1, 0.1, 0.8]), (6, "O", [0.6, 0.3, 0.1])]
    (run_dir / "h.labels.json").write_text(json.dumps(labels_file("h", rows)))
    reference = evaluate(log_files(logs_dir), run_dir)
    assert reference["Precision (X)"] == reference["Recall (X)"] == 0.5  # the script agrees with the hand count
    gold = read_dbdc_gold(file_pairs(logs_dir))
    assert gold.turns == {"h": [2, 4, 6]} and gold.dialogue_turns == {"h": list(range(7))}
    scores, per_dialogue = dbdc_run_scores(read_dbdc_run(file_pairs(run_dir), gold_turns=gold.turns), gold)
    for theirs, ours in OURS.items():
        assert scores["breakdown"][ours] == pytest.approx(reference[theirs], abs=1e-12), ours
    assert per_dialogue["h"] == scores["breakdown"] and scores["notes"] == []


def reference_and_ours(logs, exact_dir, run_dir, threshold):
    reference = evaluate(logs, exact_dir, threshold)
    gold = read_dbdc_gold((str(p), p.read_bytes()) for p in logs)
    run = read_dbdc_run(file_pairs(run_dir), gold_turns=gold.turns, dialogue_turns=gold.dialogue_turns)
    return reference, dbdc_run_scores(run, gold, threshold)[0]


@pytest.mark.shared_data
@pytest.mark.parametrize("kind", RUN_KINDS)
@pytest.mark.parametrize("threshold", [0.0, 0.5])
def test_dbdc3_english_eval_equals_the_official_script(dbdc_dir, tmp_path, kind, threshold):
    logs = log_files(dbdc_dir / "eval")
    exact = write_run(logs, tmp_path / "exact", kind, seed=11)
    # the same labels, plus the unannotated opening prompts the official script would never read
    every = write_run(logs, tmp_path / "every", kind, seed=11, every_system_turn=True)
    reference, scores = reference_and_ours(logs, exact, every, threshold)
    assert reference["System Utterance Num"] == scores["n_turns"] == 2000
    for theirs, ours in OURS.items():
        assert scores["breakdown"][ours] == pytest.approx(reference[theirs], abs=1e-6), (ours, kind, threshold)
    # the ignored labels are said so
    assert len(scores["notes"]) == 1 and "ignored the labels of 89 turns" in scores["notes"][0]
    _, exact_scores = reference_and_ours(logs, exact, exact, threshold)
    assert exact_scores["breakdown"] == scores["breakdown"] and exact_scores["notes"] == []


@pytest.mark.shared_data
def test_the_two_readings_of_precision_b_differ_on_a_random_run(dbdc_dir, tmp_path):
    # the observation: on a random run the (NB+PB, B) reading is about a third of the script's
    logs = log_files(dbdc_dir / "eval")
    gold = read_dbdc_gold((str(p), p.read_bytes()) for p in logs)
    run = read_dbdc_run(file_pairs(write_run(logs, tmp_path / "r", "random", seed=3)), gold_turns=gold.turns)
    counts = np.array([gold.counts[(d, t)] for d, t in zip(run.dialogue, run.turn.tolist())])
    old_positive = counts[:, 2] > counts[:, :2].sum(axis=1)
    old_precision = (old_positive & (run.label == 2)).sum() / (run.label == 2).sum()
    ours = dbdc_run_scores(run, gold)[0]["breakdown"]["Precision(B)"]
    assert ours > 2 * old_precision > 0


@pytest.mark.shared_data
@pytest.mark.parametrize("kind", RUN_KINDS)
def test_dbdc3_japanese_eval_equals_the_official_script(dbdc_ja_dir, tmp_path, kind):
    # the Japanese logs annotate the opening system utterance: it is scored like any other
    logs = log_files(dbdc_ja_dir / "eval")
    run = write_run(logs, tmp_path / "run", kind, seed=5)
    reference, scores = reference_and_ours(logs, run, run, 0.0)
    assert reference["System Utterance Num"] == scores["n_turns"] == 1650
    for theirs, ours in OURS.items():
        assert scores["breakdown"][ours] == pytest.approx(reference[theirs], abs=1e-6), (ours, kind)


# -- the run reader: what it accepts and what it refuses ---------------------------------------


@pytest.fixture
def hand_gold(tmp_path):
    (tmp_path / "h.log.json").write_text(json.dumps(hand_log("h", HAND_COUNTS)))
    return read_dbdc_gold(file_pairs(tmp_path, "*.log.json"))


GOOD = [(2, "X", [0.2, 0.3, 0.5]), (4, "O", [1, 0, 0]), (6, "T", ["0.25", "0.5", "0.25"])]


def read(gold, record) -> object:
    return read_dbdc_run(
        [("run/h.labels.json", json.dumps(record))], gold_turns=gold.turns, dialogue_turns=gold.dialogue_turns
    )


def test_a_run_of_exactly_the_annotated_turns_and_one_of_every_turn_score_alike(hand_gold):
    exact = read(hand_gold, labels_file("h", GOOD))
    assert exact.turn.tolist() == [2, 4, 6] and exact.ignored == () and exact.notes == []
    # numbers written as strings are read as the script reads them, with float()
    assert exact.p[2].tolist() == [0.25, 0.5, 0.25]
    every = read(hand_gold, labels_file("h", [(0, "O", [1, 0, 0]), GOOD[0], (3, "X", [0, 0, 1]), *GOOD[1:]]))
    assert every.turn.tolist() == [2, 4, 6] and every.ignored == (("h", 0), ("h", 3))
    assert "ignored the labels of 2 turns the gold does not annotate (first: dialogue h, turn 0)" in every.notes[0]
    assert dbdc_run_scores(every, hand_gold)[0]["breakdown"] == dbdc_run_scores(exact, hand_gold)[0]["breakdown"]


@pytest.mark.parametrize(
    "rows, message",
    [
        (GOOD[:2], r"run/h\.labels\.json: dialogue h: field turns: annotated system turn 6 has no label"),
        (
            [GOOD[0], (4, "O", [1.2, -0.1, -0.1]), GOOD[2]],
            r"run/h\.labels\.json: dialogue h: field turns\[1\]\.labels\[0\]\.prob-O: turn 4: prob-O 1\.2 is "
            r"outside \[0, 1\]",
        ),
        (
            [GOOD[0], (4, "O", [0.5, 0.3, 0.1]), GOOD[2]],
            r"dialogue h: field turns\[1\]\.labels\[0\]: turn 4: probabilities sum to 0\.9\d*, not 1",
        ),
        (
            [GOOD[0], GOOD[1], (6, "B", [0, 0, 1])],
            r"dialogue h: field turns\[2\]\.labels\[0\]\.breakdown: turn 6: unknown label 'B' \(expected O, T or X\)",
        ),
        ([GOOD[0], GOOD[1], (6, "X", [0, "high", 1])], r"turn 6: prob-T 'high' is not a number"),
        ([GOOD[0], GOOD[0], *GOOD[1:]], r"field turns\[1\]\.turn-index: turn 2 is labelled twice"),
        ([GOOD[1], GOOD[0], GOOD[2]], r"field turns\[1\]\.turn-index: turn 2 comes after turn 4"),
        ([*GOOD, (9, "O", [1, 0, 0])], r"field turns\[3\]\.turn-index: turn 9 is not a turn of this dialogue"),
    ],
)
def test_runs_the_official_script_would_misread_are_refused(hand_gold, rows, message):
    with pytest.raises(InputError, match=message):
        read(hand_gold, labels_file("h", rows))


def test_a_probability_sum_within_the_tolerance_is_accepted(hand_gold):
    rows = [(2, "X", [0.2, 0.3, 0.5 + 9e-7]), GOOD[1], GOOD[2]]
    assert read(hand_gold, labels_file("h", rows)).p[0, 2] == pytest.approx(0.5000009)
    record = labels_file("h", GOOD)
    del record["turns"][0]["labels"][0]["prob-T"]
    with pytest.raises(InputError, match=r"field turns\[0\]\.labels\[0\]\.prob-T: turn 2: prob-T is missing"):
        read(hand_gold, record)
