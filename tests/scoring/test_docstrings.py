"""The scoring library documents what it takes: every public function has a numpy-style Parameters section
naming each of its parameters, arrays with their shapes (as fast-krippendorff's ``alpha()``:
``reliability_data : array-like, shape (n_coders, n_units)``), and every module has a docstring example
(which ``--doctest-modules`` in pytest.ini runs)."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re

import pytest

LIBRARY = sorted(
    m.name
    for m in pkgutil.walk_packages(importlib.import_module("scoring").__path__, "scoring.")
    if not m.ispkg and not m.name.startswith("evaluation.") and not m.name.rsplit(".", 1)[1].startswith("_")
)
# the measures and models; scoring/run_files/, input.py, files.py and errors.py read input files, and runs.py,
# memory.py and metric_names.py hold the run files' records, a size estimate and the measures' names
MODULES = [
    "scoring.aggregation",
    "scoring.agreement.alpha",
    "scoring.agreement.kappa",
    "scoring.agreement.raters",
    "scoring.breakdown",
    "scoring.correlation",
    "scoring.gold",
    "scoring.measures",
    "scoring.nlpcc",
    "scoring.ordering",
    "scoring.pairwise.active",
    "scoring.pairwise.bradley_terry",
    "scoring.pairwise.diagnostics",
    "scoring.pairwise.intervals",
    "scoring.pairwise.style",
    "scoring.pairwise.summary",
    "scoring.pairwise.votes",
    "scoring.reliability",
    "scoring.significance",
    "scoring.uch",
]
SECTION = re.compile(r"^Parameters\n-{10,}\n(?P<body>.*?)(?:\n\n(?=\S)|\n(?=[A-Z][a-z]+\n-{3,})|\Z)", re.S | re.M)
ENTRY = re.compile(r"^(?P<names>\w+(?:, \w+)*) : (?P<type>.+)$", re.M)


def public_functions() -> list[str]:
    names = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module_name:
                names.append(f"{module_name}.{name}")
    return names


def parameters_section(doc: str) -> dict[str, str]:
    """``{name: type}`` from a docstring's numpy-style Parameters section (empty without one).

    >>> parameters_section("Sum.\\n\\nParameters\\n----------\\nx, y : array-like, shape (n,)\\n    Terms.\\n")
    {'x': 'array-like, shape (n,)', 'y': 'array-like, shape (n,)'}
    """
    match = SECTION.search(doc)
    if match is None:
        return {}
    return {name: entry["type"] for entry in ENTRY.finditer(match["body"]) for name in entry["names"].split(", ")}


def test_the_checked_modules_are_the_librarys():
    assert set(MODULES) < set(LIBRARY) and len(LIBRARY) >= 15 and len(public_functions()) >= 50


@pytest.mark.parametrize("qualified", public_functions())
def test_a_public_function_documents_each_parameter_and_the_shape_of_each_array(qualified):
    module_name, name = qualified.rsplit(".", 1)
    function = getattr(importlib.import_module(module_name), name)
    wanted = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    documented = parameters_section(inspect.getdoc(function) or "")
    assert wanted == [] or documented, f"{qualified} has no Parameters section"
    assert [p for p in wanted if p not in documented] == [], f"{qualified} leaves parameters undocumented"
    assert set(documented) <= set(wanted), f"{qualified} documents parameters it does not take"
    shapeless = [p for p, kind in documented.items() if kind.startswith("array") and "shape (" not in kind]
    assert shapeless == [], f"{qualified}: arrays without a shape"


@pytest.mark.parametrize("module_name", LIBRARY)
def test_a_module_of_the_library_has_an_example(module_name):
    examples = doctest.DocTestFinder().find(importlib.import_module(module_name))
    assert sum(len(test.examples) for test in examples) > 0, f"{module_name} has no docstring example"
