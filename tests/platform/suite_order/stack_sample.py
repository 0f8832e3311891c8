"""Tests run by tests/platform/test_suite_order.py in pytest-xdist's two processes, as scripts/run_tests.py runs the
suite (not collected with it: the file's name does not start with ``test_``): a module fixture and the tests that
use it, between tests that do not."""

from __future__ import annotations

import pytest

from tests.platform.suite_order import record


@pytest.fixture(scope="module")
def stack():
    """Stands for the deployment stack: set up once for the module's tests that use it."""
    record("stack set up")
    return object()


def test_alone_1():
    record("alone_1")


def test_stack_1(stack):
    record("stack_1")


def test_alone_2():
    record("alone_2")


def test_stack_2(stack):
    record("stack_2")


def test_stack_3(stack):
    record("stack_3")


def test_alone_3():
    record("alone_3")


def test_stack_4(stack):
    record("stack_4")


def test_alone_4():
    record("alone_4")


def test_stack_5(stack):
    record("stack_5")


def test_stack_6(stack):
    record("stack_6")
