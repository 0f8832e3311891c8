"""The numeric library imports and works with Django unavailable."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Every module directly in scoring/ is the library; the Django side is the scoring/app/ package
# (import-linter's first contract in pyproject.toml pins the same boundary on the import graph).
LIBRARY_MODULES = ["scoring"] + sorted(
    [f"scoring.{p.stem}" for p in (ROOT / "scoring").glob("*.py") if p.stem != "__init__"]
    + [f"scoring.{p.parent.name}" for p in (ROOT / "scoring").glob("*/__init__.py") if p.parent.name != "app"]
)


def test_library_imports_without_django():
    code = (
        "import sys; sys.modules['django'] = None\n"
        + "".join(f"import {m}\n" for m in LIBRARY_MODULES)
        + "import numpy as np\n"
        "from scoring.gold import gold_distribution\n"
        "print(gold_distribution(np.array([[1, 3]])).tolist())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[[0.25, 0.75]]"


def test_the_import_contract_lists_every_module_of_the_library():
    """import-linter's library contract names the library's modules one by one (so that scoring.app, the
    Django side, needs no ignored imports); a new library module must join the list."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    library = next(c for c in contracts if c["name"].startswith("The scoring library"))
    assert sorted(library["source_modules"]) == LIBRARY_MODULES[1:]
    assert "ignore_imports" not in library
    # and the package's own __init__ (left out of the list: it would stand for scoring.app too) imports nothing
    lines = (ROOT / "scoring" / "__init__.py").read_text().splitlines()
    assert not [line for line in lines if line.startswith(("import ", "from "))]
