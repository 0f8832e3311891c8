"""Start-up stays light: the URL configuration (what ``manage.py check`` and every web process load)
imports neither scipy, pandas, crowd-kit, pyarrow, Celery nor the redis client; the modules that use
them import them when they run (docs/performance.md, start-up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("scipy", "pandas", "crowdkit", "pyarrow", "celery", "redis")


def test_loading_the_urls_imports_none_of_the_heavy_libraries():
    probe = (
        "import django, json, sys; django.setup(); import config.urls; "
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "REDIS_URL")}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_pairwise_models_still_import_scipy_when_they_run():
    """The lazy imports resolve: the functions that moved their scipy imports inside run."""
    from scoring.pairwise.diagnostics import wilson_interval

    lo, hi = wilson_interval(7, 10)
    assert 0.39 < lo < 0.40 and 0.89 < hi < 0.90  # Wilson's 95 % interval of 7/10: (0.3968, 0.8922)
