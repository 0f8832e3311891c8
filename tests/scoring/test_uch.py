"""UCH (Zeng et al. 2017): nuggets, gains, decay, AUCH and CUCH."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.uch import auch, consolidated_labels, cuch, nuggets, uch, uch_of_sequences

C, H = "customer", "helpdesk"


def test_consecutive_posts_with_one_label_form_one_nugget():
    found = nuggets([C, C, C, H, H, C], ["CNUG0", "CNUG0", "CNUG", "HNUG", "HNUG", "CNUG*"], [2, 2, 2, 3, 3, 4])
    assert [(n.label, n.first_post, n.last_post, n.pos) for n in found] == [
        ("CNUG0", 0, 1, 4),
        ("CNUG", 2, 2, 6),
        ("HNUG", 3, 4, 12),
        ("CNUG*", 5, 5, 16),
    ]
    # NaN breaks a run, and a speaker change does too even with the same label
    assert len(nuggets([C, C, C], ["CNUG", "NaN", "CNUG"], [1, 1, 1])) == 2


def test_goal_nugget_gain_is_one_plus_the_speakers_regular_gains():
    found = nuggets([C, C, H, C], ["CNUG0", "CNUG", "HNUG", "CNUG*"], [1, 1, 1, 1])
    # without decay (huge L) UC = 1 + 1 + (1 + 2) = 5 and UH = 1
    score = uch(found, patience=1e12)
    assert score.uc == pytest.approx(5) and score.uh == pytest.approx(1)
    assert score.uch == pytest.approx(3)
    # only the goal nugget beats having all the regular nuggets (the paper's motivation)
    only_goal = uch(nuggets([C, C, C], ["NaN", "NaN", "CNUG*"], [1, 1, 1]), 1e12).uc
    only_regular = uch(nuggets([C, C, C], ["CNUG0", "NaN", "CNUG"], [1, 1, 1]), 1e12).uc
    assert only_goal == pytest.approx(1) and only_regular == pytest.approx(2)


def test_decay_and_helpdesk_weight():
    found = nuggets([C, H], ["CNUG0", "HNUG"], [50, 50])
    score = uch(found, patience=100)
    assert (score.uc, score.uh) == (pytest.approx(0.5), pytest.approx(0.0))  # D(100) = 0 at L
    assert uch(found, 100, helpdesk_weight=0).uch == pytest.approx(0.5)
    with pytest.raises(ValueError):
        uch(found, 0)


def test_auch_and_cuch():
    speakers, lengths = [C, H, C], [10, 10, 10]
    labels = [["CNUG0", "HNUG", "CNUG*"], ["CNUG0", "NaN", "CNUG*"], ["CNUG0", "HNUG", "NaN"]]
    per_annotator = [uch(nuggets(speakers, x, lengths), 30).uch for x in labels]
    assert auch(speakers, labels, lengths, 30) == pytest.approx(sum(per_annotator) / 3)
    assert consolidated_labels(labels) == ["CNUG0", "HNUG", "CNUG*"]
    assert cuch(speakers, labels, lengths, 30) == pytest.approx(per_annotator[0])


LABELS = ["CNUG0", "CNUG", "HNUG", "CNUG*", "HNUG*", "CNaN", "HNaN", "NaN"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from([C, H]), st.integers(-1, len(LABELS) - 1), st.integers(0, 30)),
            min_size=0,
            max_size=9,
        ),
        min_size=1,
        max_size=6,
    ),
    st.floats(1, 200),
    st.floats(0, 1),
)
def test_vectorised_uch_equals_the_per_sequence_definition(sequences, patience, weight):
    """``uch_of_sequences`` over many sequences at once equals ``uch(nuggets(...))`` of each."""
    expected = [
        uch(
            nuggets(
                [s for s, _l, _n in seq],
                [LABELS[lab] if lab >= 0 else None for _s, lab, _n in seq],
                [n for _s, _l, n in seq],
            ),
            patience,
            weight,
        ).uch
        for seq in sequences
    ]
    posts = [(i, s, lab, n) for i, seq in enumerate(sequences) for s, lab, n in seq]
    ends = np.concatenate([np.cumsum([n for _s, _l, n in seq]) for seq in sequences if seq] or [np.zeros(0)])
    got = uch_of_sequences(
        np.array([p[0] for p in posts], dtype=np.int64),
        np.array([[C, H].index(p[1]) for p in posts], dtype=np.int64),
        np.array([p[2] for p in posts], dtype=np.int64),
        ends,
        speakers=[C, H],
        labels=LABELS,
        patience=patience,
        helpdesk_weight=weight,
    )
    # sequences with no posts at the end are not in the result; those in between score 0
    assert len(got) <= len(expected)
    assert got == pytest.approx(expected[: len(got)], abs=1e-12)
    assert all(e == 0 for e in expected[len(got) :])


def test_vectorised_uch_refuses_nuggets_of_other_speakers():
    with pytest.raises(ValueError, match="customer and helpdesk"):
        uch_of_sequences(
            np.array([0]),
            np.array([0]),
            np.array([0]),
            np.array([5]),
            speakers=["agent"],
            labels=["CNUG0"],
            patience=10,
        )
    # a post of another speaker without a nugget label is fine
    got = uch_of_sequences(
        np.array([0, 0]),
        np.array([0, 1]),
        np.array([-1, 0]),
        np.array([5, 10]),
        speakers=["agent", C],
        labels=["CNUG0"],
        patience=20,
    )
    assert got == pytest.approx([0.25])
