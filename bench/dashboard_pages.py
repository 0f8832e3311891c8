"""The lead's dashboard of each real collection: server time per page on PostgreSQL.

Imports the real collections from ../shared/data into a throwaway PostgreSQL (or, with
DATABASE_URL and --reuse, reuses the projects an earlier run imported), computes their statistics
once, then renders the dashboard as the project's lead through Django's test client: a warm-up,
then the median of ``--requests`` requests. Prints one JSON line per collection (server time in ms,
queries, page size, annotators in the payload) with the machine's load. Target: < 1,000 ms each.

- ``dbdc3-en``: DBDC3 English eval (original release: 200 dialogues, 561 annotators), breakdown preset
- ``dbdc3-en-dev-eval``: DBDC3 English dev + eval in one project (615 dialogues, 1,684 annotators)
- ``dbdc3-ja``: DBDC3 Japanese eval, breakdown preset
- ``stc3-cn``: STC-3 Chinese training set (3,700 dialogues x 19 annotators), STC-3 preset
- ``nlpcc``: the NLPCC 2019 sample (imported counts), NLPCC preset

    .venv/bin/python bench/dashboard_pages.py [--only dbdc3-en,stc3-cn] [--requests 7] [--reuse]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _setup import django_on_postgres, extract, shared_file

COLLECTIONS = {
    "dbdc3-en": ("dbdc", lambda tmp: [extract("dbdc3.zip", "DBDC3/dbdc3/en/eval/", tmp)]),
    "dbdc3-en-dev-eval": (
        "dbdc",
        lambda tmp: [extract("dbdc3.zip", "DBDC3/dbdc3/en/", tmp) / d for d in ("dev", "eval")],
    ),
    "dbdc3-ja": ("dbdc", lambda tmp: [extract("dbdc3.zip", "DBDC3/dbdc3/ja/", tmp) / "eval"]),
    "stc3-cn": ("stc3", lambda tmp: [extract("stc3.zip", "stc3/train_data_cn.json", tmp)]),
    "nlpcc": ("nlpcc", lambda tmp: [shared_file("nlpcc2019_task3_sample.xlsx")]),
}


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def project_ready(name: str, *, reuse: bool):
    """The collection's project with its statistics computed, and its lead (imported now unless reused)."""
    from django.contrib.auth import get_user_model

    from annotator.models import Project
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import membership_add, project_create
    from evaluation.services.statistics import statistics_recompute
    from tests.factories import user_make

    slug = f"bench-dash-{name}"
    existing = Project.objects.filter(slug=slug).first()
    if existing and reuse:
        return existing, existing.memberships.get(role="lead").user, None
    if existing:
        existing.delete()
    get_user_model().objects.filter(username__startswith=f"{slug}.imported.").delete()
    preset, paths = COLLECTIONS[name]
    project = project_create(slug=slug, preset=preset, name=name)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        dialogues_import(project=project, paths=paths(Path(tmp)))
        imported = time.perf_counter() - started
    lead = get_user_model().objects.filter(username=f"{slug}-lead").first() or user_make(f"{slug}-lead")
    membership_add(project=project, user=lead, role="lead")
    statistics_recompute(project_id=project.pk)
    return project, lead, imported


def measure(name: str, *, requests: int, reuse: bool) -> dict:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    project, lead, imported = project_ready(name, reuse=reuse)
    client = Client()
    client.force_login(lead)
    url = f"/projects/{project.slug}/dashboard/"
    assert client.get(url).status_code == 200  # warm-up
    times = []
    for _ in range(requests):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200
    payload = project.statistics.payload
    return {
        "collection": name,
        "dialogues": project.dialogues.count(),
        "annotators": len((payload.get("reliability") or {}).get("annotators", {})),
        "import_s": round(imported, 1) if imported is not None else None,
        "median_ms": round(statistics.median(times), 1),
        "min_ms": round(min(times), 1),
        "requests": requests,
        "queries": len(queries.captured_queries),
        "kib": len(response.content) // 1024,
        "load": load(),
        "target_ms": 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=",".join(COLLECTIONS))
    parser.add_argument("--requests", type=int, default=7)
    parser.add_argument("--reuse", action="store_true", help="with DATABASE_URL: keep projects imported earlier")
    args = parser.parse_args()
    django_on_postgres()
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client's host
    for name in args.only.split(","):
        print(json.dumps(measure(name, requests=args.requests, reuse=args.reuse)), flush=True)


if __name__ == "__main__":
    main()
