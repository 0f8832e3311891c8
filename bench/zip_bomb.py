"""A zip bomb through every upload: refused in under a second, memory under 200 MB above idle.

The bomb is ``tests.fixtures.archives.overlapping_zip_bomb``: about 18 KB declaring 1.34 GB (160
members overlapping one deflated kernel of 8 MiB of zeros). Each upload path gets it through
Django's full request handling (middleware, authentication, parsing, the service): the lead's
upload page, the API's dialogue import, the API's run upload, and a one-member bomb compressed
1,000:1. Prints the answer, the wall time and the peak resident memory above the idle process
(the kernel's high-water mark, reset before each request through /proc/self/clear_refs).

    .venv/bin/python bench/zip_bomb.py
"""

from __future__ import annotations

import time
from pathlib import Path

from _setup import django_on_postgres


def rss_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS (Linux >= 4.0)


def main() -> None:
    django_on_postgres()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client
    from rest_framework.test import APIClient

    from annotator.models import Dialogue
    from annotator.services.projects import membership_add, project_create
    from evaluation.models import Run
    from tests.factories import user_make
    from tests.fixtures.archives import compressed_member_zip, overlapping_zip_bomb

    stamp = int(time.time())
    lead = user_make(f"bomb-lead-{stamp}")
    dbdc = project_create(slug=f"bench-bomb-dbdc-{stamp}", preset="dbdc")
    membership_add(project=dbdc, user=lead, role="lead")
    page, api = Client(HTTP_HOST="localhost"), APIClient(HTTP_HOST="localhost")
    page.force_login(lead)
    api.force_authenticate(lead)
    bomb, dense = overlapping_zip_bomb(), compressed_member_zip()
    cases = [
        ("page upload", lambda: page.post(f"/projects/{dbdc.slug}/manage/upload/",
                                          {"file": SimpleUploadedFile("bomb.zip", bomb), "format": "auto"})),
        ("API dialogue import", lambda: api.post(f"/api/projects/{dbdc.slug}/dialogues/import/",
                                                 {"file": SimpleUploadedFile("bomb.zip", bomb)}, format="multipart")),
        ("API run upload", lambda: api.post(f"/api/projects/{dbdc.slug}/runs/",
                                            {"name": "bomb", "files": [SimpleUploadedFile("bomb.zip", bomb)]},
                                            format="multipart")),
        ("API import, 1,000:1 member", lambda: api.post(f"/api/projects/{dbdc.slug}/dialogues/import/",
                                                        {"file": SimpleUploadedFile("z.zip", dense)},
                                                        format="multipart")),
    ]  # fmt: skip
    page.get("/")  # warm up the request path once
    print(f"bomb: {len(bomb):,} bytes declaring 1,342,177,280 bytes in 160 members; dense: {len(dense):,} bytes")
    print(f"{'upload':<28} {'status':>6} {'seconds':>8} {'peak above idle':>16}")
    for label, call in cases:
        idle = rss_kib("VmRSS")
        reset_peak()
        started = time.perf_counter()
        response = call()
        wall = time.perf_counter() - started
        above = (rss_kib("VmHWM") - idle) / 1024
        print(f"{label:<28} {response.status_code:>6} {wall:>8.3f} {above:>13.1f} MB")
        assert response.status_code == 400, response.content[:300]
    print(f"dialogues imported: {Dialogue.objects.filter(project=dbdc).count()}, "
          f"runs stored: {Run.objects.filter(project=dbdc).count()}")  # fmt: skip


if __name__ == "__main__":
    main()
