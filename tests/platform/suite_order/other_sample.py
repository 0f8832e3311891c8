"""Tests of another file, run by tests/platform/test_suite_order.py beside stack_sample.py."""

from tests.platform.suite_order import record


def test_other_1():
    record("other_1")


def test_other_2():
    record("other_2")


def test_other_3():
    record("other_3")
