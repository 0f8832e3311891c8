"""The order in which pytest-xdist hands out the suite's work (tests/conftest.py): a test file's tests together in
one process and in their order, the longest files first, from the durations ``--record-durations`` writes to
tests/durations.txt."""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import DURATIONS, DurationsRecorder, durations_known, longest_first, work_unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = [Path(__file__).with_name("suite_order") / name for name in ("stack_sample.py", "other_sample.py")]


@dataclass
class Item:
    """What ``longest_first`` reads of a collected test: its id and markers."""

    nodeid: str
    marks: dict = field(default_factory=dict)

    def get_closest_marker(self, name):
        return self.marks.get(name)


BROWSER = {"browser": pytest.mark.browser.mark}


def test_the_longest_files_go_first_and_a_files_tests_stay_together_in_their_order():
    items = [
        Item("a.py::quick"),
        Item("b.py::one", BROWSER),
        Item("c.py::long"),
        Item("b.py::two", BROWSER),
        Item("d.py::deploy", {"deployment": pytest.mark.deployment.mark}),
        Item("a.py::C::also_quick"),
        Item("b.py::three[x::y]", BROWSER),
    ]
    known = {"c.py::long": 300.0, "b.py::one": 100.0}  # b.py: 100 s + two browser tests' 10 s
    order = [item.nodeid for item in longest_first(items, known)]
    assert order == [
        "c.py::long",
        *("b.py::one", "b.py::two", "b.py::three[x::y]"),
        "d.py::deploy",
        *("a.py::quick", "a.py::C::also_quick"),
    ]


def test_a_work_unit_is_what_pytest_xdists_scheduler_hands_out_at_once():
    from xdist.scheduler.loadfile import LoadFileScheduling

    for nodeid in ("t.py::a", "t.py::a[x::y]", "t.py::C::a", "d/t.py::C::a[1]", "scoring/m.py::scoring.m.f"):
        assert work_unit(nodeid) == LoadFileScheduling._split_scope(None, nodeid), nodeid  # self is unused


def test_under_two_processes_a_module_fixtures_tests_run_in_one_process_in_their_order(tmp_path, monkeypatch):
    """Run as scripts/run_tests.py runs a lane. Under ``--dist loadgroup`` with pytest 9.2 the group's tests went
    out one by one to either process, each setting up the module fixture (pytest-xdist issue 1386: the group it
    writes into the test ids is no longer seen): the deployment stack was set up twice and its hostile uploads
    ran just after its Redis stop in the other process (the run reverted in commit 360adab)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import run_tests

    monkeypatch.setenv("TEST_PROCESSES", "2")
    log = tmp_path / "order.log"
    env = {k: v for k, v in run_tests.environment().items() if not k.startswith("PYTEST_XDIST")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *run_tests.parallel([]), "-p", "no:cacheprovider", "-q", *map(str, SAMPLES)],
        cwd=ROOT,
        env=dict(env, SUITE_ORDER_LOG=str(log)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ran = defaultdict(list)
    for line in log.read_text().splitlines():
        process, event = line.split(" ", 1)
        ran[process].append(event)
    assert set(ran) == {"gw0", "gw1"}, ran  # both processes took work
    set_up_in = [process for process, events in ran.items() if "stack set up" in events]
    assert len(set_up_in) == 1, ran  # the module fixture was set up once
    stack_events = [event for event in ran[set_up_in[0]] if event.startswith("stack")]
    assert stack_events == ["stack set up", *(f"stack_{n}" for n in range(1, 7))], ran  # there, in file order


def test_a_recording_keeps_the_header_and_the_tests_that_did_not_run_and_drops_the_short_ones(tmp_path):
    path = tmp_path / DURATIONS.name
    path.write_text("# measured\n# on CI\n   50.0 t.py::kept\n   40.0 t.py::faster\n   30.0 t.py::now_short\n")
    recorder = DurationsRecorder(path)
    for nodeid, seconds in (("t.py::faster", 6.0), ("t.py::now_short", 1.0), ("t.py::new", 70.0)):
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
        function = name.split("[")[0].split("::")[-1].rsplit(".", 1)[-1]  # a doctest's id is module.function
        assert f"def {function}(" in (root / path).read_text(), nodeid
