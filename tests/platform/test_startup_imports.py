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
# made on first use (api.views.schema, api.schema_docs): they import DRF's test client, Django's test framework,
# Jinja2; requests and yaml, which DRF's compat imports "in case", are stand-ins until used (config.deferred_imports)
SCHEMA_VIEWS = ("drf_spectacular.views", "drf_spectacular.generators", "drf_spectacular.openapi", "api.schema")
NOT_AT_START = ("django.test", "rest_framework.test", "jinja2", "urllib3", "yaml.cyaml")
# what scoring a run has no use for: the statistics and their payload, the API's views and schema, the test framework
NOT_FOR_SCORING = (
    *HEAVY,
    "evaluation.services.statistics",
    "evaluation.services.payloads",
    "annotator.handout.selectors.adaptive",
    "rest_framework.views",
    "drf_spectacular.utils",
    "django.test",
    "jinja2",
    "urllib3",
    # the admin's registrations are discovered with the URLs (config.admin_app)
    "annotator.admin",
    "django.contrib.auth.forms",
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
    assert loaded_after("import config.urls", HEAVY + SCHEMA_VIEWS + NOT_AT_START) == []


def test_score_run_loads_neither_the_statistics_nor_the_api():
    """The command and both scorers (STC-3, DBDC), as ``manage.py score_run`` imports them."""
    statements = (
        "import evaluation.management.commands.score_run, evaluation.runs.services.stc3, evaluation.runs.services.dbdc"
    )
    assert loaded_after(statements, NOT_FOR_SCORING) == []


def test_the_deferred_libraries_work_when_used():
    """``requests`` is a stand-in after set-up and the URLs, and behaves as the library when used."""
    statements = (
        "import config.urls, requests, yaml; assert type(requests).__name__ == 'DeferredModule'; "
        "from requests.adapters import HTTPAdapter; from rest_framework.test import RequestsClient; "
        "assert issubclass(RequestsClient().adapters['http://'].__class__, HTTPAdapter); "
        "assert yaml.safe_load('a: [1, 2]') == {'a': [1, 2]}; assert callable(requests.get)"
    )
    out = loaded_after(statements, ("urllib3",))
    assert out == ["urllib3"]  # used, hence loaded


def test_the_admins_registrations_come_with_the_urls():
    """Set-up registers nothing (commands need none); loading the URLs registers every app's models."""
    statements = (
        "from django.contrib import admin; from annotator.models import Project; "
        "before = len(admin.site._registry); import config.urls; "
        "assert before == 0 and Project in admin.site._registry, before"
    )
    assert loaded_after(statements, ("annotator.admin",)) == ["annotator.admin"]


def test_the_admins_checks_discover_the_registrations_they_check():
    """``manage.py check`` may run the admin's checks before it loads the URLs: they discover the admin first."""
    statements = (
        "from django.contrib import admin; from django.core import checks; from annotator.models import Project; "
        "assert checks.run_checks(tags=[checks.Tags.admin]) == []; assert Project in admin.site._registry"
    )
    assert loaded_after(statements, ("annotator.admin",)) == ["annotator.admin"]


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


@pytest.mark.django_db
def test_the_views_documentation_is_applied_when_the_document_is_built(client):
    """``api.schema_docs.documented`` records; the document carries what it recorded (parameters, answers)."""
    schema = client.get("/api/schema/?format=json").json()
    listing = schema["paths"]["/api/assignments/"]["get"]
    assert {p["name"] for p in listing["parameters"]} >= {"project", "status"}
    token = schema["paths"]["/api/auth/token/"]["post"]
    assert token["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/TokenInRequest")
    assert token["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/TokenOut")


def test_the_pairwise_models_still_import_scipy_when_they_run():
    """The lazy imports resolve: the functions that moved their scipy imports inside run."""
    from scoring.pairwise.diagnostics import wilson_interval

    lo, hi = wilson_interval(7, 10)
    assert 0.39 < lo < 0.40 and 0.89 < hi < 0.90  # Wilson's 95 % interval of 7/10: (0.3968, 0.8922)
