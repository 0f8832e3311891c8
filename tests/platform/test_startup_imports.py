"""Start-up stays light: the URL configuration (what ``manage.py check`` and every web process load)
imports neither scipy, pandas, crowd-kit, pyarrow, Celery nor the redis client, nor drf-spectacular's
schema views; ``score_run`` loads none of the statistics, the API or the workers; ``manage.py`` runs a
command's work with the garbage collector on (it is off while the code loads). The modules that use
the heavy libraries import them when they run (docs/performance.md, start-up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("scipy", "pandas", "crowdkit", "pyarrow", "celery", "redis")
# made on first use (api.views.schema): they import DRF's test client, Django's test framework and Jinja2
SCHEMA_VIEWS = ("drf_spectacular.views", "drf_spectacular.generators")
# what scoring a run has no use for: the statistics and their payload, the API's views and schema, the test framework
NOT_FOR_SCORING = (
    *HEAVY,
    "scoring.app.services.statistics",
    "scoring.app.services.payloads",
    "annotator.selectors.adaptive",
    "rest_framework.views",
    "drf_spectacular.utils",
    "django.test",
    "jinja2",
    "requests",
)


def loaded_after(statements: str, names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` a fresh process has imported after ``django.setup()`` and ``statements``."""
    probe = (
        f"import django, json, sys; django.setup(); {statements}; "
        f"print(json.dumps(sorted(m for m in {names!r} if m in sys.modules)))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "REDIS_URL")}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_loading_the_urls_imports_none_of_the_heavy_libraries():
    assert loaded_after("import config.urls", HEAVY + SCHEMA_VIEWS) == []


def test_score_run_loads_neither_the_statistics_nor_the_api():
    """The command and both scorers (STC-3, DBDC), as ``manage.py score_run`` imports them."""
    statements = (
        "import scoring.app.management.commands.score_run, scoring.app.services.runs.stc3, "
        "scoring.app.services.runs.dbdc"
    )
    assert loaded_after(statements, NOT_FOR_SCORING) == []


def test_manage_py_runs_a_commands_work_with_the_collector_on():
    """Off while the code loads, on (with what was loaded frozen) when the command's work starts."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    probe = "import gc; print(gc.isenabled(), gc.get_freeze_count() > 0)"
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].split() == ["True", "True"]


@pytest.mark.django_db
def test_the_schema_views_made_on_first_use_serve_and_document_themselves(client):
    schema = client.get("/api/schema/?format=json")
    assert schema.status_code == 200 and "/api/schema/" in schema.json()["paths"]
    assert client.get("/api/docs/").status_code == 200


def test_the_pairwise_models_still_import_scipy_when_they_run():
    """The lazy imports resolve: the functions that moved their scipy imports inside run."""
    from scoring.pairwise.diagnostics import wilson_interval

    lo, hi = wilson_interval(7, 10)
    assert 0.39 < lo < 0.40 and 0.89 < hi < 0.90  # Wilson's 95 % interval of 7/10: (0.3968, 0.8922)
