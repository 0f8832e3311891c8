"""Runs sent gzipped: read as the files they hold (``run.json.gz`` is ``run.json``; a gzipped zip is a zip),
scored exactly as the plain file; refused with the right reason otherwise: a gzipped tar, a gzip bomb (at
upload from its trailer, by the worker as it expands), a truncated gzip, and files of which none is JSON
(named, never "contains no JSON files" alone)."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zipfile

import pytest

from annotator.services.demo import DEMO_DIR
from evaluation.runs.services.scoring import run_score
from evaluation.runs.services.upload import run_upload
from scoring.errors import InputError
from scoring.files import ArchiveLimits, expand_archives, gunzip
from tests.factories import project_with_submissions
from tests.reference_scoring import random_stc3_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def stc3():
    work = project_with_submissions("stc3", slug="gz-runs")
    dialogues = json.loads((DEMO_DIR / "stc3.json").read_text(encoding="utf-8"))
    return work.project, json.dumps(random_stc3_run(dialogues, seed=3)).encode()


def test_a_gzipped_run_is_scored_as_the_plain_file(stc3):
    project, raw = stc3
    plain = run_score(project=project, files=[("run.json", raw)], name="plain")
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("inner/run.json", raw)
    for name, data in (("run.json.gz", gzip.compress(raw)), ("run.zip.gz", gzip.compress(zipped.getvalue()))):
        run = run_score(project=project, files=[(name, data)], name=name)
        assert run.scores["quality"] == plain.scores["quality"] and run.scores["nugget"] == plain.scores["nugget"]
    # a gzip whose name says nothing: the name its header records
    header_named = io.BytesIO()
    with gzip.GzipFile(filename="submission.json", mode="wb", fileobj=header_named) as out:
        out.write(raw)
    [found] = list(expand_archives([("upload", header_named.getvalue())]))
    assert found.relative == "submission.json" and found.content == raw


def test_gzipped_runs_that_cannot_be_read_are_refused_with_the_reason(stc3):
    project, raw = stc3
    tarred = io.BytesIO()
    with tarfile.open(fileobj=tarred, mode="w:gz") as archive:
        info = tarfile.TarInfo("run.json")
        info.size = len(raw)
        archive.addfile(info, io.BytesIO(raw))
    with pytest.raises(InputError, match=r"run\.tar\.gz: is a tar archive; send a zip"):
        run_score(project=project, files=[("run.tar.gz", tarred.getvalue())], name="tar")
    with pytest.raises(InputError, match=r"run\.json\.gz: not a readable gzip file"):
        run_score(project=project, files=[("run.json.gz", gzip.compress(raw)[:-12])], name="cut")
    with pytest.raises(InputError, match=r"contains no JSON files .*it holds: notes.txt"):
        run_score(project=project, files=[("notes.txt.gz", gzip.compress(b"hello"))], name="txt")
    bomb = gzip.compress(b"\0" * (4 << 20))
    with pytest.raises(InputError, match=r"compresses more than 100:1 \(a gzip bomb\?\)"):
        run_upload(project=project, files=[("bomb.json.gz", bomb)], name="bomb")  # refused at upload
    with pytest.raises(InputError, match="expands to more than 1,000 bytes"):
        gunzip(gzip.compress(b"0" * 2000), "big.json.gz", ArchiveLimits(max_total_bytes=1000))
