"""Render the lead's manage page of a project with 5,016 items (the STC-3 English training set's
1,672 dialogues, K = 3 of three annotators) on PostgreSQL, unfiltered and filtered.

Prints the server-side render time of each page (median of 20 requests through Django's test
client, after a warm-up) and its number of queries. Target: < 300 ms.

    .venv/bin/python bench/manage_page.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from _setup import django_on_postgres, extract

REQUESTS = 20


def main() -> None:
    django_on_postgres()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    from annotator.handout.services.bulk import assignments_create_balanced
    from annotator.models import Assignment, AssignmentStatus
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import membership_add, project_create
    from tests.factories import user_make

    setup_test_environment()  # the test client's host
    stamp = int(time.time())
    slug = f"bench-manage-{stamp}"
    with tempfile.TemporaryDirectory() as tmp:
        path = extract("stc3.zip", "stc3/train_data_en.json", Path(tmp))
        project = project_create(slug=slug, preset="stc3", annotators_per_dialogue=3)
        started = time.perf_counter()
        dialogues_import(project=project, paths=[path])
        imported = time.perf_counter() - started
    lead = user_make(f"{slug}-lead")
    membership_add(project=project, user=lead, role="lead")
    annotators = [user_make(f"{slug}-ann{i}") for i in range(1, 4)]
    for user in annotators:
        membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project)
    items = Assignment.objects.filter(dialogue__project=project, imported=False)
    done = list(items.filter(annotator=annotators[0]).values_list("pk", flat=True)[:900])
    Assignment.objects.filter(pk__in=done).update(status=AssignmentStatus.SUBMITTED)
    client = Client()
    client.force_login(lead)
    url = f"/projects/{slug}/manage/"
    print(f"project          {project.dialogues.count()} dialogues, {items.count()} items (import {imported:.1f} s)")
    for label, query in (
        ("unfiltered", ""),
        ("page 50", "?page=50"),
        ("status", "?status=submitted"),
        ("annotator", f"?annotator={annotators[1].pk}"),
        ("dialogue", "?dialogue=1234"),
    ):
        client.get(url + query)  # warm-up
        times = []
        for _ in range(REQUESTS):
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                response = client.get(url + query)
                times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200
        print(
            f"{label:<16} median {statistics.median(times):6.1f} ms  min {min(times):6.1f} ms  "
            f"{len(queries.captured_queries)} queries  ({len(response.content) // 1024} KiB)"
        )
    print("target           < 300 ms")


if __name__ == "__main__":
    main()
