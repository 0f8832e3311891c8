"""The numeric library imports and works with Django unavailable."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Everything under scoring/ is the library (import-linter's first contract in pyproject.toml pins the same
# boundary on the import graph; the Django side is the evaluation app).
LIBRARY_MODULES = ["scoring"] + sorted(
    [f"scoring.{p.stem}" for p in (ROOT / "scoring").glob("*.py") if p.stem != "__init__"]
    + [f"scoring.{p.parent.name}" for p in (ROOT / "scoring").glob("*/__init__.py")]
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


def test_no_django_anywhere_under_scoring():
    """The whole package is the library: no module under scoring/ names Django, DRF, Celery or the apps, and
    import-linter's contract covers the package whole, with no ignored imports."""
    import re
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    library = next(c for c in contracts if c["name"].startswith("The scoring library"))
    assert library["source_modules"] == ["scoring"]
    assert "ignore_imports" not in library
    pattern = re.compile(r"^\s*(from|import)\s+(django|rest_framework|celery|annotator|evaluation|api|config)\b", re.M)
    offenders = [str(p) for p in (ROOT / "scoring").rglob("*.py") if pattern.search(p.read_text())]
    assert offenders == []
