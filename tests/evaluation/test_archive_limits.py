"""Uploads and archives are bounded: a zip bomb is refused from its directory, before anything is expanded."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from rest_framework.test import APIClient

from annotator.models import Dialogue
from evaluation.models import Run
from scoring.errors import InputError
from scoring.files import ArchiveLimits, expand_archives, walk_path
from tests.factories import project_with_work
from tests.fixtures.archives import compressed_member_zip, many_members_zip, overlapping_zip_bomb


@pytest.fixture
def no_expansion(monkeypatch):
    """Call it once the zips are built: from then on, opening any member of any zip fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("a member was expanded")

    return lambda: monkeypatch.setattr(zipfile.ZipFile, "open", refuse)


def test_overlapping_zip_bomb_is_refused_from_its_directory(no_expansion, tmp_path):
    bomb = overlapping_zip_bomb()
    assert len(bomb) < 32_000  # a few KB ...
    path = tmp_path / "bomb.zip"
    path.write_bytes(bomb)
    no_expansion()
    # (1.3 GB in all is within the limit on the total: each member compresses 1,000:1)
    with pytest.raises(InputError, match=r"bomb\.zip:bomb\.log\.json: field compression: compresses [\d,]+:1, more"):
        list(walk_path(path))
    with pytest.raises(InputError, match=r"compresses [\d,]+:1, more than the 100:1 accepted"):
        list(expand_archives([("bomb.zip", bomb)]))


def test_highly_compressed_member_is_refused(no_expansion):
    dense = compressed_member_zip()
    no_expansion()
    with pytest.raises(InputError, match=r"z\.zip:zeros\.log\.json: field compression: compresses [\d,]+:1, more"):
        list(expand_archives([("z.zip", dense)]))


def test_too_many_members_are_refused(no_expansion):
    many = many_members_zip(11)
    no_expansion()
    with pytest.raises(InputError, match="has 11 members; at most 10 are accepted"):
        list(expand_archives([("many.zip", many)], ArchiveLimits(max_members=10)))


def test_many_small_dense_members_are_refused_as_a_whole(no_expansion):
    """Members of 1 MiB each escape the members' ratio (tiny files compress oddly): taken together, 64 of them
    (64 MiB of zeros in about 64 KB) are refused."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(64):
            archive.writestr(f"z{i:02d}.log.json", b"\0" * (1 << 20))
    no_expansion()
    with pytest.raises(InputError, match=r"dense\.zip: field compression: its small members expand to 67,108,864"):
        list(expand_archives([("dense.zip", buffer.getvalue())]))


def test_a_hundred_times_the_dbdc3_english_evaluation_set_is_accepted_by_default(tmp_path):
    """20,000 files (DBDC3's English evaluation set is 200, 1.3 GB pretty-printed at 100x) within the limits the
    settings give by default."""
    from annotator.importers.limits import archive_limits

    path = tmp_path / "dbdc-x100.zip"
    path.write_bytes(many_members_zip(20_000))
    assert sum(1 for _ in walk_path(path, archive_limits())) == 20_000
    assert archive_limits().max_total_bytes >= 100 * 13_221_275


def test_an_archive_within_the_limits_is_read():
    assert len(list(expand_archives([("many.zip", many_members_zip(10))], ArchiveLimits(max_members=10)))) == 10


@pytest.mark.django_db(transaction=True)
@pytest.mark.eager_tasks(reason="the import's job refuses the bomb: its failure is what the page and the API show")
@pytest.mark.parametrize("where", ["page upload", "API import", "API run upload"])
def test_zip_bomb_upload_is_refused_and_nothing_is_stored(no_expansion, client, where):
    work = project_with_work("dbdc", slug="bombed", annotators=1)
    before = (Dialogue.objects.count(), Run.objects.count())
    bomb = SimpleUploadedFile("bomb.zip", overlapping_zip_bomb())
    no_expansion()
    api = APIClient()
    api.force_authenticate(work.lead)
    client.force_login(work.lead)
    if where == "page upload":
        response = client.post("/projects/bombed/manage/upload/", {"file": bomb, "format": "auto"})
        assert b"more than the 100:1 accepted (a zip bomb?)" in response.content
    elif where == "API import":
        response = api.post("/api/projects/bombed/dialogues/import/", {"file": bomb}, format="multipart")
        assert response.json()["field"] == "compression"
    else:
        response = api.post("/api/projects/bombed/runs/", {"name": "b", "files": [bomb]}, format="multipart")
        assert "more than the 100:1 accepted (a zip bomb?)" in response.json()["detail"]
    assert response.status_code == 400  # the job done at once: the page and the API answer with its failure
    assert (Dialogue.objects.count(), Run.objects.count()) == before


@pytest.mark.django_db(transaction=True)
@pytest.mark.eager_tasks(reason="the import's job applies the limits: its failure is what the page shows")
@override_settings(ARCHIVE_MAX_MEMBERS=3)
def test_archive_limits_come_from_the_settings(client):
    work = project_with_work("dbdc", slug="few", annotators=1)
    client.force_login(work.lead)
    response = client.post(
        "/projects/few/manage/upload/",
        {"file": SimpleUploadedFile("m.zip", many_members_zip(4)), "format": "dbdc"},
    )
    assert response.status_code == 400 and b"has 4 members; at most 3 are accepted" in response.content


@pytest.mark.django_db
@override_settings(UPLOAD_MAX_BYTES=10_000)
def test_upload_larger_than_the_limit_is_refused_unread(client):
    work = project_with_work("stc3", slug="big", annotators=1)
    before = Dialogue.objects.count()
    client.force_login(work.lead)
    big = SimpleUploadedFile("big.json", b"[" + b" " * 20_000 + b"]")
    page = client.post("/projects/big/manage/upload/", {"file": big, "format": "auto"})
    assert page.status_code == 413 and b"uploads are limited to" in page.content
    api = APIClient()
    api.force_authenticate(work.lead)
    big.seek(0)
    answer = api.post("/api/projects/big/dialogues/import/", {"file": big}, format="multipart")
    assert answer.status_code == 413 and "UPLOAD_MAX_MB" in answer.json()["detail"]
    assert Dialogue.objects.count() == before


def test_upload_limit_defaults_to_200_megabytes(settings):
    assert settings.UPLOAD_MAX_BYTES == 200 * 1024 * 1024


def test_a_member_that_cannot_be_read_is_an_input_error():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.json", bytes(range(256)) * 8)  # compresses little: a long deflate stream
    raw = bytearray(buffer.getvalue())
    raw[50:70] = b"\xff" * 20  # inside the deflated data (after the 36 bytes of the local header and name)
    with pytest.raises(InputError, match=r"x\.zip:a\.json: cannot be read from the zip"):
        list(expand_archives([("x.zip", bytes(raw))]))
