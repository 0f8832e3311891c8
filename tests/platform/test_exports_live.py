"""Every export endpoint, for a project of every preset, through ``manage.py runserver`` and its worker - what
``scripts/serve.sh`` runs. Django's test client takes a header that is not a plain ``str`` (the
``SourceFilter.ALL`` enum once was); wsgiref refuses it, and every gold export answered 500 there. The files are
written by the worker: the endpoint answers 202 with the job at work, then the file (``LiveServer.get_done``)."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest

from annotator.exporters import DISTRIBUTION_FORMATS, EXPORT_FORMATS
from annotator.presets import PRESETS
from annotator.services.demo import DEMO_DIR
from evaluation.runs.services.scoring import run_score
from tests.conftest import database_url
from tests.factories import project_with_submissions
from tests.fixtures.dbdc_runs import file_pairs, log_files, write_run
from tests.live_servers import running, start_runserver
from tests.reference_scoring import random_stc3_run

pytestmark = pytest.mark.django_db(transaction=True)

# the community formats each preset exports; distributions fit all
FITS = {"stc3": {"stc3"}, "dbdc": {"dbdc"}, "pairwise": {"pairwise", "preference-pairs"}}


def parsed(fmt: str, body: bytes):
    """The export read as its format is read, so that an empty or broken body fails."""
    if fmt in ("stc3", "distributions-json"):
        return json.loads(body)
    if fmt == "distributions-csv":
        return list(csv.reader(io.StringIO(body.decode("utf-8"))))[1:]
    if fmt in ("pairwise", "preference-pairs"):  # JSON lines
        return [json.loads(line) for line in body.decode("utf-8").splitlines()]
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        return archive.namelist()


def scored_run(work, tmp_path) -> int | None:
    """A run scored on the project, for the presets whose runs the tests can write; its id."""
    project = work.project
    if project.preset == "stc3":
        dialogues = json.loads((DEMO_DIR / "stc3.json").read_text(encoding="utf-8"))
        files = [("sys.json", json.dumps(random_stc3_run(dialogues)).encode())]
        return run_score(project=project, files=files, name="sys").pk
    if project.preset == "dbdc":
        folder = write_run(log_files(DEMO_DIR / "dbdc"), tmp_path / "dbdc-run", "random", every_system_turn=True)
        return run_score(project=project, files=file_pairs(folder), name="sys").pk
    if project.preset == "coherence":
        return run_score(project=project).pk  # the annotators' reorderings
    return None


def test_every_export_answers_for_every_preset_on_runserver(tmp_path):
    works = {preset: project_with_submissions(preset, slug=f"live-{preset}") for preset in PRESETS}
    runs = {preset: scored_run(work, tmp_path) for preset, work in works.items()}
    assert sum(r is not None for r in runs.values()) == 3
    with running(start_runserver(database_url(), tmp_path / "runserver.log", with_worker=True)) as server:
        for preset, work in works.items():
            session = server.token_session(work.lead)
            base = f"{server.url}/api/projects/{work.project.slug}"
            for fmt in EXPORT_FORMATS:
                answer = server.get_done(session, f"{base}/export/", params={"format": fmt})
                if fmt in DISTRIBUTION_FORMATS or fmt in FITS.get(preset, set()):
                    assert answer.status_code == 200, (preset, fmt, answer.text[:500])
                    assert parsed(fmt, answer.content), (preset, fmt)
                    assert answer.headers["X-Annotators-Source"] == "all"
                    assert not any(h.startswith("X-Annotators-Incl") for h in answer.headers)
                else:  # refused, with a message naming the formats that fit
                    assert answer.status_code == 400, (preset, fmt, answer.text[:500])
                    message = answer.json()["format"][0]
                    assert f"cannot be exported as {fmt}" in message and "distributions-json" in message
            who = session.get(f"{base}/export/annotators/", timeout=60)
            assert who.status_code == 200
            assert {p.username for p in work.annotators} <= set(who.json()["included"]), who.text  # with imported ones
            archive = server.get_done(session, f"{base}/archive/")
            assert archive.status_code == 200 and zipfile.ZipFile(io.BytesIO(archive.content)).namelist()
            stats = server.get_done(session, f"{base}/stats/")  # 202 while its worker recomputes them
            assert stats.status_code == 200, (preset, stats.text[:500])
            if runs[preset] is not None:  # a run's scores per dialogue, as JSON and as CSV
                per_dialogue = f"{base}/runs/{runs[preset]}/per-dialogue/"
                as_json = session.get(per_dialogue, timeout=60)
                assert as_json.status_code == 200 and as_json.json(), (preset, as_json.text[:500])
                as_csv = session.get(per_dialogue, params={"format": "csv"}, timeout=60)
                assert as_csv.status_code == 200 and len(as_csv.text.splitlines()) > 1, (preset, as_csv.text[:500])
                listed = session.get(f"{base}/runs/", timeout=60).json()["results"]
                assert [r["stale"] for r in listed] == [False], (preset, listed)


def test_a_wrong_format_is_refused_in_the_readers_language(tmp_path):
    work = project_with_submissions("dbdc", slug="live-ja")
    with running(start_runserver(database_url(), tmp_path / "runserver.log")) as server:
        session = server.token_session(work.lead)
        answer = session.get(
            f"{server.url}/api/projects/live-ja/export/",
            params={"format": "stc3"},
            headers={"Accept-Language": "ja"},
            timeout=60,
        )
    assert answer.status_code == 400
    message = answer.json()["format"][0]
    assert "stc3" in message and "cannot be exported" not in message  # translated, still naming the format
