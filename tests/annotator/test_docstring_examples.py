"""The docstring examples of the helpers that name units, order them, give keys and format times hold."""

import doctest
import importlib

import pytest

MODULES = [
    "annotator.units",
    "annotator.selectors.annotation",
    "annotator.selectors.structure",
    "annotator.templatetags.annotator_time",
]


@pytest.mark.sqlite
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0, name
