"""Malformed numeric input is refused by every public function of the library that takes label counts or
distributions (``scoring.checks``): negative, fractional, non-finite or non-numeric entries, ragged tables and
tables of the wrong shape raise a ``ValueError`` that names the argument, never a number computed from them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scoring.adaptive.stop_rules import expected_gold_change, gold_of, interval_width, predictive
from scoring.agreement import agreement_shares, fleiss_kappa, krippendorff_alpha_from_counts, randolph_kappa
from scoring.agreement.intervals import fleiss_kappa_interval, krippendorff_alpha_interval
from scoring.agreement.sums import unit_terms
from scoring.breakdown import gold_labels, gold_shares
from scoring.gold import gold_distribution
from scoring.judges.agreement import human_means, judge_agreement, majority_labels
from scoring.judges.calibration import calibration
from scoring.measures import MEASURES


def _calibration(counts, shape):
    return calibration(counts, np.full(shape, 1 / shape[1]), ordered=False)


# every public function that takes a units x categories table of label counts, as a function of the table (and of
# the shape the table had before it was spoiled, for the arguments that must match it)
LABEL_COUNTS = {
    "fleiss_kappa": lambda counts, shape: fleiss_kappa(counts),
    "randolph_kappa": lambda counts, shape: randolph_kappa(counts),
    "agreement_shares": lambda counts, shape: agreement_shares(counts),
    "krippendorff_alpha_from_counts": lambda counts, shape: krippendorff_alpha_from_counts(counts),
    "fleiss_kappa_interval": lambda counts, shape: fleiss_kappa_interval(counts, seed=0, resamples=20),
    "krippendorff_alpha_interval": lambda counts, shape: krippendorff_alpha_interval(counts, seed=0, resamples=20),
    "majority_labels": lambda counts, shape: majority_labels(counts),
    "human_means": lambda counts, shape: human_means(counts),
    "judge_agreement": lambda counts, shape: judge_agreement(counts, [0] * shape[0], ordered=False, resamples=20),
    "calibration": lambda counts, shape: _calibration(counts, shape),
    "gold_distribution": lambda counts, shape: gold_distribution(counts),
    "gold_shares": lambda counts, shape: gold_shares(counts),
    "gold_labels": lambda counts, shape: gold_labels(counts),
    "gold_of": lambda counts, shape: gold_of(counts),
    "predictive": lambda counts, shape: predictive(counts),
    "expected_gold_change": lambda counts, shape: expected_gold_change(counts),
    "interval_width": lambda counts, shape: interval_width(counts),
}

# these take counts with any number of axes, the categories last (one unit's counts, or units x categories)
ANY_AXES = {"gold_distribution", "gold_shares", "gold_labels"}

tables = st.integers(2, 6).flatmap(
    lambda units: st.integers(2, 4).flatmap(
        lambda categories: st.lists(
            st.lists(st.integers(0, 6), min_size=categories, max_size=categories), min_size=units, max_size=units
        )
    )
)
SPOILT_ENTRIES = {"negative": -3, "fraction": 0.5, "not a number": float("nan"), "infinite": float("inf")}


def spoilt(table: list[list[int]], how: str, row: int, column: int):
    """``table`` with one flaw: an entry replaced, a row shortened, an axis lost or added, or text."""
    table = [list(r) for r in table]
    row, column = row % len(table), column % len(table[0])
    if how in SPOILT_ENTRIES:
        table[row][column] = SPOILT_ENTRIES[how]
        return table
    if how == "ragged":
        table[row] = table[row][:-1]
        return table
    if how == "one axis":
        return table[row]
    if how == "three axes":
        return [table]
    table[row][column] = "3"
    return table


FLAWS = [*SPOILT_ENTRIES, "ragged", "one axis", "three axes", "text"]
# no deadline: the suite runs beside other processes on shared cores, and an example's time says nothing here
checked = settings(deadline=None, max_examples=50)


@pytest.mark.parametrize("name", sorted(LABEL_COUNTS))
@given(table=tables, how=st.sampled_from(FLAWS), row=st.integers(0, 10), column=st.integers(0, 10))
@checked
def test_every_function_taking_label_counts_refuses_a_spoilt_table_naming_it(name, table, how, row, column):
    assume(name not in ANY_AXES or how not in ("one axis", "three axes"))
    shape = (len(table), len(table[0]))
    with pytest.raises(ValueError, match=r"^counts"):
        LABEL_COUNTS[name](spoilt(table, how, row, column), shape)


@pytest.mark.parametrize("name", sorted(LABEL_COUNTS))
@given(table=tables)
@checked
def test_every_function_taking_label_counts_takes_a_well_formed_table(name, table):
    LABEL_COUNTS[name](table, (len(table), len(table[0])))
    LABEL_COUNTS[name](np.array(table, dtype=np.int64), (len(table), len(table[0])))


@given(table=tables, how=st.sampled_from([*SPOILT_ENTRIES, "text"]), column=st.integers(0, 10))
@checked
def test_one_units_terms_refuse_a_spoilt_count(table, how, column):
    with pytest.raises(ValueError, match=r"^counts"):
        unit_terms(spoilt(table, how, 0, column)[0])


@pytest.mark.parametrize("name", sorted(MEASURES))
@given(table=tables, how=st.sampled_from(["negative", "not a number", "infinite", "ragged", "text"]))
@checked
def test_every_measure_refuses_spoilt_distributions_naming_them(name, table, how):
    measure = MEASURES[name][0]
    table = [[value + 1 for value in row] for row in table]  # no row all zero
    with pytest.raises(ValueError, match=r"^p\b"):
        measure(spoilt(table, how, 0, 0), table)


def test_the_examples_of_the_issue_are_refused():
    with pytest.raises(ValueError, match=r"counts\[0, 0\] is -3: a label count cannot be negative"):
        majority_labels([[-3, 1]])
    with pytest.raises(ValueError, match=r"counts\[0, 0\] is -1: a label count cannot be negative"):
        human_means([[-1, 2]])
    with pytest.raises(ValueError, match="rows have different lengths"):
        fleiss_kappa([[1, 2], [3]])
