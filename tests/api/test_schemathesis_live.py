"""Schemathesis against the live server: gunicorn with the production settings on PostgreSQL, seeded with the demo
(``tests/live_servers.py``), every operation of ``/api/schema/`` as the lead and as an annotator (each with their
API token), through the schemathesis command line (its coverage phase tries each parameter's boundaries, its
fuzzing phase random input), with the checks that the API answers as its OpenAPI document says: no server error,
only documented status codes, content types, bodies and headers.

Path parameters are real objects most of the time (a dictionary of the seeded ids, ``probability``), so that the
views, not only their 404s, are reached. The write throttle is raised for the run (``API_WRITE_RATE``): at the
deployment's 300 a minute most writes would answer 429, which the document describes but which tests nothing
behind it. A lead's own token revoked by the fuzzer would end the run early, so the revoke endpoint goes last.
``-s`` prints the operations, test cases and failures by check.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import database_url
from tests.live_servers import seed_database, start_gunicorn

pytestmark = pytest.mark.django_db(transaction=True)

MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "25"))  # per operation and phase: a few minutes
CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
]
REVOKE = "tokens/revoke"


def config(seeded: dict) -> str:
    """schemathesis.toml: the seeded objects as the path parameters' values, 80% of the time."""
    values = {
        "slug": seeded["slugs"],
        "id": seeded["assignments"] + [seeded["run"], seeded["batch"]],
        "external_id": seeded["external_ids"],
        "study_id": [seeded["study"]],
        "user_id": [seeded["user"]],
        "annotator": ["ann1", "ann2", "ann3"],
        "criterion": [seeded["criterion"]],
        "unit": [0, 1, 2],
    }
    lines = []
    for name, listed in values.items():
        lines.append(f"[dictionaries.{name}]\nvalues = {json.dumps(listed)}\n")
    lines.append("[parameters]")
    for name in values:
        lines.append(f'"path.{name}" = {{ dictionary = "{name}", probability = 0.8 }}')
    return "\n".join(lines) + "\n"


def fuzz(server, seeded: dict, token: str, tmp_path, name: str, *selection: str) -> dict:
    """One ``st run`` over the operations ``selection`` picks; the JSON report."""
    (tmp_path / "schemathesis.toml").write_text(config(seeded))
    report = tmp_path / f"{name}.json"
    command = [
        str(Path(sys.executable).parent / "st"), "--config-file", str(tmp_path / "schemathesis.toml"), "run",
        f"{server.url}/api/schema/?format=json", "--url", server.url,
        "-H", f"Authorization: Token {token}", "-H", "X-Forwarded-Proto: https",
        "--checks", ",".join(CHECKS), "--max-examples", str(MAX_EXAMPLES), "--seed", "1",
        "--phases", "examples,coverage,fuzzing", "--workers", "1", "--no-shrink", "--continue-on-failure",
        "--generation-database", "none", "--request-timeout", "120", "--no-color",
        "--report", "json", "--report-json-path", str(report), *selection,
    ]  # fmt: skip
    run = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=1800)
    (tmp_path / f"{name}.out").write_text(run.stdout + run.stderr)
    assert report.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    found = json.loads(report.read_text())
    found["output"] = run.stdout
    return found


def summary(name: str, report: dict) -> Counter:
    failures = Counter({f"{f['code']} {f['title']}": f["count"] for f in report["failures"]})
    operations = report.get("operations", {})
    cases = report.get("test_cases", {})
    print(f"\n{name}: operations {operations}, test cases {cases}; failures by check: {dict(failures) or 'none'}")
    for failure in report["failures"]:
        print(f"  {failure['code']} {failure['title']}: " + ", ".join(failure["operations"]))
    return failures


@pytest.mark.postgres(reason="gunicorn with the production settings, as deployed, on the test PostgreSQL")
def test_the_live_api_answers_as_its_openapi_document_says(tmp_path):
    url = database_url()
    seeded = seed_database(url)
    server = start_gunicorn(url, tmp_path / "gunicorn.log", API_WRITE_RATE="100000/minute")
    try:
        tokens = seeded["tokens"]
        reports = {
            "annotator": fuzz(server, seeded, tokens["ann1"], tmp_path, "annotator", "--exclude-path-regex", REVOKE),
            "lead": fuzz(server, seeded, tokens["owner"], tmp_path, "lead", "--exclude-path-regex", REVOKE),
            "lead, revoking tokens": fuzz(
                server, seeded, tokens["owner"], tmp_path, "revoke", "--include-path-regex", REVOKE
            ),
        }
    finally:
        server.stop()
    failures = {name: summary(name, report) for name, report in reports.items()}
    log = (tmp_path / "gunicorn.log").read_text()
    assert "Traceback" not in log, log[-5000:]
    for name, report in reports.items():
        assert failures[name] == Counter(), f"{name}:\n" + report["output"][-20000:]
        assert report["test_cases"]["errored"] == 0, f"{name}:\n" + report["output"][-20000:]
    assert reports["lead"]["operations"]["tested"] >= 45
