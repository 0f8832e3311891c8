"""The STC-3 run reader validates distributions in bulk and still names the first bad one exactly."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.errors import InputError
from scoring.input import Record
from scoring.run_files import read_stc3_run
from scoring.run_files.stc3 import _distribution, _distributions

GOLD = {"d1": ["customer", "helpdesk"], "d2": ["customer"]}
SCALE = ["-2", "-1", "0", "1", "2"]
CUSTOMER, HELPDESK = ["CNUG0", "CNUG", "CNUG*", "CNaN"], ["HNUG", "HNUG*", "HNaN"]


def run(bad_value=None, where=("d2", 0)):
    records = [
        {"id": "d1", "quality": {"A": {"0": 1}}, "nugget": [{"CNUG0": 0.5, "CNUG": 0.5}, {"HNUG": 1}]},
        {"id": "d2", "quality": {"A": {"1": 0.25, "2": 0.75}}, "nugget": [{"CNaN": 1}]},
    ]
    if bad_value is not None:
        record = next(r for r in records if r["id"] == where[0])
        record["nugget"][where[1]] = {"CNUG": bad_value}
    return records


def read(records):
    import json

    return read_stc3_run(
        json.dumps(records),
        source="run.json",
        gold_turns=GOLD,
        quality_scale=SCALE,
        quality_keys=["A"],
        customer_labels=CUSTOMER,
        helpdesk_labels=HELPDESK,
    )


def test_valid_run_gives_the_given_probabilities():
    parsed = read(run())
    assert parsed.customer.p.tolist() == [[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    assert parsed.helpdesk.p.tolist() == [[1.0, 0.0, 0.0]]
    positions, estimates = parsed.quality["A"]
    assert positions.tolist() == [0, 1] and estimates.tolist() == [[0, 0, 1, 0, 0], [0, 0, 0, 0.25, 0.75]]


@pytest.mark.parametrize(
    "bad, message",
    [
        ("0.5", "is not a number"),
        (True, "is not a number"),
        (-1, "is negative"),
        (float("inf"), "is not a finite number"),
        ([1], "is not a number"),
    ],
)
def test_a_bad_value_is_named_by_dialogue_and_field(bad, message):
    records = run(bad)
    if bad == float("inf"):
        records[1]["nugget"][0] = {"CNUG": 1e400}  # json.dumps writes Infinity; a huge literal parses to inf
    with pytest.raises(InputError, match=rf"dialogue d2: field nugget\[0\]\.CNUG: .*{message}"):
        read(records)


VALUES = st.one_of(
    st.floats(0, 1),
    st.integers(0, 3),
    st.sampled_from([-0.5, float("nan"), float("inf"), 1e308, True, None, "0.5", [0.5]]),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.sampled_from([*CUSTOMER, "HNUG"]), VALUES, max_size=4),
        max_size=6,
    ),
    st.booleans(),
)
def test_bulk_distributions_equal_one_object_at_a_time(objs, same_shape):
    """Whatever the objects' keys, key order and values: the bulk check accepts exactly the runs whose every
    object is a valid distribution, with the same probabilities."""
    if same_shape and objs:  # the usual run: every object with the same keys in the same order
        objs = [{k: obj.get(k, 0.25) for k in objs[0]} for obj in objs]
    got = _distributions(objs, CUSTOMER)
    rows = []
    for obj in objs:
        try:
            rows.append(_distribution(obj, CUSTOMER, at=Record("run.json", "d"), field="nugget[0]"))
        except InputError:
            assert got is None
            return
    assert got is not None
    assert got.tolist() == [list(row) for row in rows] if rows else got.shape == (0, len(CUSTOMER))
