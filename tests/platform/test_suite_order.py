"""The order in which pytest-xdist hands out the suite's work (tests/conftest.py): the longest work units first, a
group's tests together, from the durations ``--record-durations`` writes to tests/durations.txt."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from tests.conftest import DURATIONS, DurationsRecorder, durations_known, longest_first, without_group


@dataclass
class Item:
    """What ``longest_first`` reads of a collected test: its id and markers."""

    nodeid: str
    marks: dict = field(default_factory=dict)

    def get_closest_marker(self, name):
        return self.marks.get(name)

    def iter_markers(self, name):
        return [self.marks[name]] if name in self.marks else []


def group(name: str):
    return pytest.mark.xdist_group(name).mark


def test_the_longest_units_go_first_and_a_groups_tests_stay_together_in_their_order():
    items = [
        Item("a.py::quick"),
        Item("b.py::one", {"xdist_group": group("b"), "browser": pytest.mark.browser.mark}),
        Item("c.py::long"),
        Item("b.py::two", {"xdist_group": group("b"), "browser": pytest.mark.browser.mark}),
        Item("d.py::deploy", {"deployment": pytest.mark.deployment.mark}),
        Item("e.py::also_quick"),
    ]
    known = {"c.py::long": 300.0, "b.py::one": 100.0}  # b's group: 100 s + a browser test's 10 s
    order = [item.nodeid for item in longest_first(items, known)]
    assert order == ["c.py::long", "b.py::one", "b.py::two", "d.py::deploy", "a.py::quick", "e.py::also_quick"]


def test_the_group_pytest_xdist_appends_is_left_out_of_the_recorded_id():
    assert without_group("tests/x.py::test_a@tests.x") == "tests/x.py::test_a"
    assert without_group("tests/x.py::test_a[user@host]") == "tests/x.py::test_a[user@host]"
    assert without_group("tests/x.py::test_a[user@host]@tests.x") == "tests/x.py::test_a[user@host]"


def test_a_recording_keeps_the_header_and_the_tests_that_did_not_run_and_drops_the_short_ones(tmp_path):
    path = tmp_path / DURATIONS.name
    path.write_text("# measured\n# on CI\n   50.0 t.py::kept\n   40.0 t.py::faster\n   30.0 t.py::now_short\n")
    recorder = DurationsRecorder(path)
    for nodeid, seconds in (("t.py::faster@t", 6.0), ("t.py::now_short", 1.0), ("t.py::new", 70.0)):
        for phase in ("setup", "call", "teardown"):
            recorder.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, when=phase, duration=seconds / 3))
    recorder.pytest_sessionfinish(SimpleNamespace(config=SimpleNamespace()))
    assert path.read_text().splitlines()[:2] == ["# measured", "# on CI"]
    assert durations_known(path) == pytest.approx({"t.py::new": 70.0, "t.py::kept": 50.0, "t.py::faster": 6.0})


def test_the_committed_durations_name_tests_that_exist():
    """A line for a test renamed or removed would order nothing: the file names existing tests only."""
    root = DURATIONS.parent.parent
    for nodeid in durations_known():
        path, _, name = nodeid.partition("::")
        assert (root / path).exists(), nodeid
        assert f"def {name.split('[')[0].split('::')[-1]}(" in (root / path).read_text(), nodeid
