"""The numeric library imports and works with Django unavailable."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Every module directly in scoring/ is the library; the Django side is the scoring/app/ package
# (import-linter's first contract in pyproject.toml pins the same boundary on the import graph).
LIBRARY_MODULES = ["scoring"] + sorted(
    f"scoring.{p.stem}" for p in (ROOT / "scoring").glob("*.py") if p.stem != "__init__"
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
