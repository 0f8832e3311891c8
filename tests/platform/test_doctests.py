"""pytest runs the docstring examples of the product packages itself (``--doctest-modules`` in pytest.ini; the
root conftest.py names what it leaves out and why). These tests keep that switched on, and keep the modules
counted as tested by their examples holding at least one."""

import configparser
import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("scoring", "annotator", "evaluation", "api", "config")
# helpers whose docstring examples are their tests (the scoring library's modules: tests/scoring/test_docstrings.py)
EXAMPLED = [
    "annotator.units",
    "annotator.selectors.annotation",
    "annotator.selectors.structure",
    "annotator.templatetags.annotator_time",
]


def test_pytest_collects_the_doctests_of_every_product_package():
    ini = configparser.ConfigParser()
    ini.read(ROOT / "pytest.ini")
    assert "--doctest-modules" in ini["pytest"]["addopts"].split()
    assert set(PACKAGES) <= set(ini["pytest"]["testpaths"].split())


@pytest.mark.parametrize("name", EXAMPLED)
def test_a_module_tested_by_its_examples_has_some(name):
    examples = doctest.DocTestFinder().find(importlib.import_module(name))
    assert sum(len(test.examples) for test in examples) > 0, f"{name} has no docstring example"
