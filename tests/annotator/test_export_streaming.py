"""Exports are streamed (read a chunk of dialogues at a time, written to the job's file and served from it) and give
the bytes the whole-document writers gave."""

import csv
import io
import json
import zipfile

import pytest
from django.http import StreamingHttpResponse
from rest_framework.test import APIClient

from annotator.exporters import common, export_gold
from annotator.exporters.cells import SafeCsvWriter
from annotator.exporters.dbdc import dbdc_records
from annotator.exporters.distributions import CSV_COLUMNS, distribution_records
from annotator.exporters.stc3 import stc3_records
from annotator.exporters.stream import LazyList, json_chunks
from evaluation.archive import export as archive_module
from evaluation.archive.export import ARCHIVE_JSON, ARCHIVE_MEMBER, project_archive, project_archive_data
from tests.factories import project_with_submissions

pytestmark = pytest.mark.django_db
# the endpoint's file written by its job in the caller: these check its bytes, not how the job runs
WRITTEN_AT_ONCE = pytest.mark.eager_tasks(reason="the bytes of the file the export job writes and the API serves")


def whole_document_bytes(project, fmt: str) -> bytes:
    """What the exporters wrote before they streamed: the whole document built, then dumped."""
    if fmt == "stc3":
        return json.dumps(stc3_records(project), ensure_ascii=False, indent=1).encode("utf-8")
    if fmt == "distributions-json":
        return json.dumps(distribution_records(project), ensure_ascii=False, indent=1).encode("utf-8")
    buffer = io.StringIO()
    writer = SafeCsvWriter(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for key, entry in distribution_records(project)["criteria"].items():
        for item in entry["items"]:
            for value, count in item["counts"].items():
                writer.writerow(
                    [key, item["dialogue"], item["unit"], item.get("speaker", ""), item["n"], value, count,
                     repr(item["distribution"][value]), item["adjudicated"] or "", item["adjudication_note"], "votes",
                     ";".join(item["annotators"])]
                )  # fmt: skip
    return buffer.getvalue().encode("utf-8")


def lead_client(work) -> APIClient:
    client = APIClient()
    client.force_authenticate(work.lead)
    return client


# every preset with both distribution formats, and the STC-3 format for the one preset that has it
CASES = [
    (p, f) for p in ["stc3", "dch1", "dbdc", "nlpcc", "coherence"] for f in ["distributions-json", "distributions-csv"]
]


@WRITTEN_AT_ONCE
@pytest.mark.parametrize(("preset", "fmt"), [*CASES, ("stc3", "stc3")])
def test_the_api_streams_the_bytes_of_the_whole_document(preset, fmt):
    # given a project of the preset with submitted work
    work = project_with_submissions(preset)
    # when the lead downloads the export
    response = lead_client(work).get(f"/api/projects/{work.project.slug}/export/?format={fmt}")
    # then it is streamed, and its bytes are those of the document built whole and dumped
    assert response.status_code == 200 and isinstance(response, StreamingHttpResponse)
    body = response.getvalue()
    assert body == whole_document_bytes(work.project, fmt) == export_gold(project=work.project, fmt=fmt)
    if fmt == "distributions-csv":
        assert next(csv.reader(io.StringIO(body.decode()))) == CSV_COLUMNS


@WRITTEN_AT_ONCE
def test_the_dbdc_zip_is_streamed_with_every_dialogue_as_before():
    work = project_with_submissions("dbdc")
    response = lead_client(work).get(f"/api/projects/{work.project.slug}/export/?format=dbdc")
    assert response.status_code == 200 and isinstance(response, StreamingHttpResponse)
    with zipfile.ZipFile(io.BytesIO(response.getvalue())) as archive:
        assert archive.testzip() is None
        members = {name: archive.read(name) for name in archive.namelist()}
    expected = dbdc_records(work.project)
    assert list(members) == [name for name, _record in expected]
    for name, record in expected:
        assert members[name] == json.dumps(record, ensure_ascii=False, indent=2).encode("utf-8")


@pytest.mark.parametrize("fmt", ["stc3", "dbdc", "distributions-json", "distributions-csv"])
def test_reading_one_dialogue_at_a_time_gives_the_same_bytes(fmt, monkeypatch):
    # given a project whose export spans several chunks of dialogues when a chunk holds one dialogue
    work = project_with_submissions("stc3" if fmt == "stc3" else "dbdc")
    whole = export_gold(project=work.project, fmt=fmt)
    monkeypatch.setattr(common, "DIALOGUE_CHUNK", 1)
    assert work.project.dialogues.count() > 1
    # then the bytes do not depend on the chunk size
    assert export_gold(project=work.project, fmt=fmt) == whole


@WRITTEN_AT_ONCE
def test_the_archive_is_streamed_and_holds_the_document_as_before(monkeypatch):
    work = project_with_submissions("stc3")
    response = lead_client(work).get(f"/api/projects/{work.project.slug}/archive/")
    assert response.status_code == 200 and isinstance(response, StreamingHttpResponse)
    body = response.getvalue()
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        document = archive.read(ARCHIVE_MEMBER)
    assert document == json.dumps(project_archive_data(work.project), **ARCHIVE_JSON).encode("utf-8")
    # reading a row at a time gives the same bytes
    monkeypatch.setattr(archive_module, "DIALOGUE_CHUNK", 1)
    monkeypatch.setattr(archive_module, "ROW_CHUNK", 1)
    assert project_archive(work.project) == body


@pytest.mark.parametrize(
    "options", [{"indent": 1}, {"indent": None, "sort_keys": True, "separators": (",", ":")}, {"indent": None}]
)
def test_lazy_lists_are_written_as_lists(options):
    """Written by the standard library's walk (indented) or a row at a time by its C encoder (not): the same
    text as ``json.dumps`` wherever a LazyList is, in a row of another, in a tuple, beside keys that are not
    text."""
    document = {"b": [1, {"x": []}], "a": [], "c": [[2, 3], {"y": "ü"}], "d": [{"e": [[{"f": [1, 2.5, None]}]]}]}
    lazy = {
        "b": LazyList(iter([1, {"x": LazyList(iter([]))}])),
        "a": LazyList(iter([])),
        "c": LazyList(x for x in [[2, 3], {"y": "ü"}]),
        "d": LazyList(iter([{"e": (LazyList(iter([{"f": LazyList(iter([1, 2.5, None]))}])),)}])),
    }
    if not options.get("sort_keys"):
        document["g"], lazy["g"] = {1: [True]}, {1: LazyList(iter([True]))}
    assert b"".join(json_chunks(lazy, ensure_ascii=False, **options)) == json.dumps(
        document, ensure_ascii=False, **options
    ).encode("utf-8")


@pytest.mark.parametrize("preset", ["stc3", "dch1", "dbdc", "nlpcc", "coherence"])
def test_distributions_read_a_slice_of_dialogues_at_a_time_give_the_whole_project_document(preset, monkeypatch):
    """Vote shares read one dialogue at a time equal those read in one go (units, order, counts, annotators)."""
    from annotator.exporters import distributions

    work = project_with_submissions(preset)
    monkeypatch.setattr(distributions, "SLICE_DIALOGUES", 10**6)
    whole = distribution_records(work.project)
    monkeypatch.setattr(distributions, "SLICE_DIALOGUES", 1)
    sliced = distribution_records(work.project)
    assert sliced == whole
    assert sum(len(entry["items"]) for entry in whole["criteria"].values()) > work.project.dialogues.count()
    assert len({item["dialogue"] for entry in whole["criteria"].values() for item in entry["items"]}) > 1


@pytest.mark.both_databases(
    reason="a run's scores per dialogue stream out through each database's JSON functions (jsonb_each, json_each)"
)
def test_a_runs_scores_per_dialogue_stream_from_the_database_as_stored(monkeypatch, tmp_path):
    """The CSV of a scored run is read a few dialogues at a time and holds exactly the stored scores
    (PostgreSQL's jsonb_each and SQLite's json_each)."""
    from evaluation.models import Run
    from evaluation.runs.selectors import scores_csv as run_csv
    from evaluation.runs.services.scoring import run_score
    from tests.reference_scoring import random_stc3_run

    work = project_with_submissions("stc3")
    dialogues = stc3_records(work.project)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(random_stc3_run(dialogues, 3)))
    run = run_score(project=work.project, path=path, name="sys")
    monkeypatch.setattr(run_csv, "FETCH_ROWS", 1)
    for response in (
        lead_client(work).get(f"/api/projects/{work.project.slug}/runs/{run.pk}/per-dialogue/?format=csv"),
        _page_client(work).get(f"/projects/{work.project.slug}/runs/{run.pk}/per-dialogue.csv"),
    ):
        assert response.status_code == 200 and isinstance(response, StreamingHttpResponse)
        table = list(csv.reader(io.StringIO(response.getvalue().decode("utf-8"))))
        stored = Run.objects.get(pk=run.pk).per_dialogue
        metrics = sorted({m for values in stored.values() for m in values})
        assert table[0] == ["dialogue", *metrics] and len(stored) == len(dialogues) > 1
        assert table[1:] == [[d, *(_cell(values.get(m, "")) for m in metrics)] for d, values in stored.items()]


def _cell(value) -> str:
    return "" if value in ("", None) else str(value)


def _page_client(work):
    from django.test import Client

    client = Client()
    client.force_login(work.lead)
    return client
