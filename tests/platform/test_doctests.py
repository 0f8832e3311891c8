"""The examples in every module's docstrings run and give what they say (library, apps, API, settings)."""

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("scoring", "annotator", "api", "config")


def project_modules() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).with_suffix("")
            if (
                "migrations" in relative.parts
                or relative.name == "wsgi"
                or relative.parts[:2] == ("config", "settings")
            ):
                continue
            names.append(".".join(relative.parts[:-1] if relative.name == "__init__" else relative.parts))
    return names


def test_every_module_is_collected():
    modules = project_modules()
    assert {"scoring.measures", "scoring.app.services.payloads", "annotator.presets", "api.views.projects"} <= set(
        modules
    )


@pytest.mark.sqlite
@pytest.mark.parametrize("name", project_modules())
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
