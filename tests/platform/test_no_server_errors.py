"""The 30 requests a security probe found answering 500: each answers a clear 4xx now, and changes nothing.

Uploads (through the lead's page and through the API) name the file, the record and the field;
the autosave endpoint answers 400 with the reason; the lead's judgements page answers 404.
"""

from __future__ import annotations

import html
import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from annotator.models import Assignment, Dialogue, GoldCount, Judgement, Membership, Post, Reordering
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add
from tests.factories import project_with_work
from tests.fixtures.collections import dbdc_dialogue, nlpcc_rows, stc3_dialogues, write_json, write_nlpcc_xlsx

pytestmark = pytest.mark.django_db

DEEP = 100_000


def table_rows() -> dict[str, list]:
    """Every row an import or a save could touch, as plain values: 'unchanged' compares these."""
    User = get_user_model()
    return {
        "users": sorted(User.objects.values_list("username", flat=True)),
        "memberships": sorted(Membership.objects.values_list("project_id", "user_id", "role", "source_key")),
        "dialogues": sorted(Dialogue.objects.values_list("project_id", "external_id")),
        "posts": Post.objects.count(),
        "assignments": sorted(Assignment.objects.values_list("pk", "status", "seconds_spent")),
        "judgements": sorted(Judgement.objects.values_list("assignment_id", "criterion_id", "unit", "value")),
        "reorderings": sorted(Reordering.objects.values_list("assignment_id", "submitted_order")),
        "gold": GoldCount.objects.count(),
    }


def stc3_bytes(mutate) -> bytes:
    data = stc3_dialogues()
    data[0]["id"], data[1]["id"] = "fine", "bad"  # "fine" is new to the project (the seed holds d1)
    mutate(data[1])
    return json.dumps(data).encode()  # ASCII escapes: lone surrogates and NUL survive as \ud800 and \u0000


def jsonl_bytes(**fields) -> bytes:
    good = {"id": "fine", "turns": [{"speaker": "A", "text": "hello"}, {"speaker": "B", "text": "hi"}]}
    bad = {**good, "id": "bad", **fields}
    return (json.dumps(good) + "\n" + json.dumps(bad) + "\n").encode()


def dbdc_bytes(mutate) -> bytes:
    record = dbdc_dialogue("bd-bad")
    mutate(record)
    return json.dumps(record).encode()


def deep_jsonl_record() -> bytes:
    head = '{"id": "bad", "turns": [{"speaker": "A", "text": "x"}], "meta": {"x": '
    return (head + "[" * DEEP + "]" * DEEP + "}}\n").encode()


def zip_with_bad_crc() -> bytes:
    buffer = io.BytesIO()
    content = json.dumps(dbdc_dialogue("bd-zip")).encode()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("bd-zip.log.json", content)
    raw = bytearray(buffer.getvalue())
    at = raw.index(b"I like trains")
    raw[at] = ord("i")  # the stored bytes no longer match the CRC in the headers
    return bytes(raw)


def nlpcc_bytes(tmp_path, rows=None, summary=None) -> bytes:
    return write_nlpcc_xlsx(tmp_path / "n.xlsx", rows or nlpcc_rows(), summary=summary).read_bytes()


def set_path(record, path, value):
    *head, last = path
    for key in head:
        record = record[key]
    record[last] = value


# (case, preset, file name, content(tmp_path), the error names: file part, record part, field part, message part)
UPLOADS = [
    ("id of 201 characters", "stc3", "s.json", lambda t: stc3_bytes(lambda d: d.update(id="x" * 201)),
     "s.json", None, "field id", "201 characters long; at most 200"),
    ("speaker of 41 characters", "coherence", "c.jsonl", lambda t: jsonl_bytes(
        turns=[{"speaker": "S" * 41, "text": "x"}]), "c.jsonl", "dialogue bad", "posts[0].speaker", "at most 40"),
    ("speaker of 5,000 characters", "coherence", "c.jsonl", lambda t: jsonl_bytes(
        turns=[{"speaker": "S" * 5000, "text": "x"}]), "c.jsonl", "dialogue bad", "posts[0].speaker", "5000 char"),
    ("language code of 21 characters", "coherence", "c.jsonl", lambda t: jsonl_bytes(language="l" * 21),
     "c.jsonl", "dialogue bad", "field language", "at most 20"),
    ("DBDC annotator-id of 101 characters", "dbdc", "bd.log.json", lambda t: dbdc_bytes(
        lambda r: set_path(r, ["turns", 2, "annotations", 0, "annotator-id"], "a" * 101)),
     "bd.log.json", "dialogue bd-bad", "turns[2].annotations[0].annotator-id", "at most 100"),
    ("NLPCC system name of 200 characters", "nlpcc", "n.xlsx", lambda t: nlpcc_bytes(
        t, rows=[("q", "r", "s" * 200, *nlpcc_rows()[0][3:])]), "n.xlsx", "row 2", "field 机器人", "at most 195"),
    ("NUL in an id", "stc3", "s.json", lambda t: stc3_bytes(lambda d: d.update(id="ba\x00d")),
     "s.json", None, "field [1].id", "NUL character"),
    ("NUL in a text", "coherence", "c.jsonl", lambda t: jsonl_bytes(turns=[{"speaker": "A", "text": "a\x00b"}]),
     "c.jsonl", "dialogue bad", "field turns[0].text", "NUL character"),
    ("NUL in a speaker", "coherence", "c.jsonl", lambda t: jsonl_bytes(turns=[{"speaker": "A\x00", "text": "t"}]),
     "c.jsonl", "dialogue bad", "field turns[0].speaker", "NUL character"),
    ("NUL in metadata", "coherence", "c.jsonl", lambda t: jsonl_bytes(meta={"note": "x\x00"}),
     "c.jsonl", "dialogue bad", "field meta.note", "NUL character"),
    ("NUL in a metadata key", "dbdc", "bd.log.json", lambda t: dbdc_bytes(lambda r: r.update({"k\x00": 1})),
     "bd.log.json", "dialogue bd-bad", "field 'k", "NUL character"),
    ("NUL in an annotation's comment", "dbdc", "bd.log.json", lambda t: dbdc_bytes(
        lambda r: set_path(r, ["turns", 4, "annotations", 0, "comment"], "\x00")),
     "bd.log.json", "dialogue bd-bad", "turns[4].annotations[0].comment", "NUL character"),
    ("lone surrogate in a text", "stc3", "s.json", lambda t: stc3_bytes(
        lambda d: set_path(d, ["turns", 0, "utterances", 0], "a\ud800b")),
     "s.json", "dialogue bad", "field turns[0].utterances[0]", "lone surrogate"),
    ("lone surrogate in an id", "stc3", "s.json", lambda t: stc3_bytes(lambda d: d.update(id="\udfff")),
     "s.json", None, "field [1].id", "lone surrogate"),
    ("JSON nested 100,000 deep: the whole file", "stc3", "s.json", lambda t: b"[" * DEEP + b"]" * DEEP,
     "s.json", None, None, "nested too deeply"),
    ("JSON nested 100,000 deep: inside a record", "coherence", "c.jsonl", lambda t: deep_jsonl_record(),
     "c.jsonl", None, "line 1", "nested too deeply"),
    ("JSON nested 200 deep: readable but not storable", "coherence", "c.jsonl", lambda t: jsonl_bytes(
        meta={"x": json.loads("[" * 200 + "]" * 200)}), "c.jsonl", "dialogue bad", "metadata.meta.x", "nested more"),
    ("turn index beyond 32 bits", "dbdc", "bd.log.json", lambda t: dbdc_bytes(
        lambda r: set_path(r, ["turns", 0, "turn-index"], 1 << 40)),
     "bd.log.json", "dialogue bd-bad", "posts[0].turn-index", "outside"),
    ("zip member with a bad CRC", "dbdc", "logs.zip", lambda t: zip_with_bad_crc(),
     "logs.zip:bd-zip.log.json", None, None, "Bad CRC"),
    ("NLPCC summary with text in a count column", "nlpcc", "n.xlsx", lambda t: nlpcc_bytes(
        t, summary=[("bot-a", "many", 6)]), "n.xlsx", "summary row 1", "summary.严重错误答案", "a whole count"),
]  # fmt: skip


@pytest.fixture
def lead_world(make_user, tmp_path):
    """A lead of a project of each preset the uploads go to; the stc3 one already holds a dialogue."""
    lead = make_user("lead")
    projects = {}
    for preset in ("stc3", "coherence", "dbdc", "nlpcc"):
        from annotator.services.projects import project_create

        projects[preset] = project_create(slug=f"up-{preset}", preset=preset)
        membership_add(project=projects[preset], user=lead, role="lead")
    dialogues_import(project=projects["stc3"], paths=[write_json(tmp_path / "seed.json", [stc3_dialogues()[0]])])
    return lead, projects


def expect_named(text: str, file_part, record_part, field_part, message_part) -> None:
    assert file_part in text, text
    if record_part:
        assert record_part in text, text
    if field_part:
        assert field_part in text, text
    assert message_part in text, text


# Committed as a deployment commits (no test transaction), so the import job runs when the request commits; run in
# the caller, the answer is the import's own result.
@pytest.mark.eager_tasks(reason="the import's refusal (file, record, field) as the request answers it once it ran")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("case, preset, name, content, file_part, record_part, field_part, message", UPLOADS,
                         ids=[c[0] for c in UPLOADS])  # fmt: skip
def test_upload_through_the_page_answers_400_naming_file_record_field(
    lead_world, client, tmp_path, case, preset, name, content, file_part, record_part, field_part, message
):
    lead, projects = lead_world
    client.force_login(lead)
    raw = content(tmp_path)
    before = table_rows()
    response = client.post(
        reverse("lead_upload", args=[projects[preset].slug]),
        {"file": SimpleUploadedFile(name, raw), "format": "auto"},
    )
    assert response.status_code == 400
    text = html.unescape(response.content.decode())
    assert "Nothing was imported." in text
    expect_named(text, file_part, record_part, field_part, message)
    assert table_rows() == before


# Committed as a deployment commits (no test transaction), so the import job runs when the request commits; run in
# the caller, the answer is the import's own result.
@pytest.mark.eager_tasks(reason="the import's refusal (file, record, field) as the request answers it once it ran")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("case, preset, name, content, file_part, record_part, field_part, message", UPLOADS,
                         ids=[c[0] for c in UPLOADS])  # fmt: skip
def test_upload_through_the_api_answers_400_naming_file_record_field(
    lead_world, tmp_path, case, preset, name, content, file_part, record_part, field_part, message
):
    lead, projects = lead_world
    api = APIClient()
    api.force_authenticate(lead)
    raw = content(tmp_path)
    before = table_rows()
    response = api.post(
        f"/api/projects/{projects[preset].slug}/dialogues/import/",
        {"file": SimpleUploadedFile(name, raw), "format": "auto"},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    body = response.json()  # the import job, refused: its error names the file, the record and the field
    assert body["status"] == "failed" and body["file"].startswith(file_part.split(":")[0])
    expect_named(body["error"], file_part, record_part, field_part, message)
    assert table_rows() == before


DRAFT_BODIES = [
    ("a list", b"[]", "Expected a dictionary, but got list"),
    ("null", b"null", "No data provided"),
    ("a string", b'"x"', "Expected a dictionary, but got str"),
    ("a number", b"1", "Expected a dictionary, but got int"),
    ("seconds of 1e400", b'{"judgements": [], "seconds": 1e400}', "seconds: A valid integer is required"),
    ("seconds of NaN", b'{"judgements": [], "seconds": "NaN"}', "seconds: A valid integer is required"),
]


@pytest.mark.parametrize("case, body, reason", DRAFT_BODIES, ids=[c[0] for c in DRAFT_BODIES])
def test_autosave_answers_400_with_the_reason(client, case, body, reason):
    work = project_with_work("stc3", annotators=1)
    annotator = work.annotators[0]
    item = work.assignments_of(annotator)[0]
    client.force_login(annotator)
    before = table_rows()
    # the page's save: the API's, with the page's session
    response = client.post(reverse("api-judgements", args=[item.pk]), data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["reason"] == "invalid"
    assert any(reason in problem for problem in response.json()["problems"]), response.json()
    assert table_rows() == before


def test_json_nested_too_deeply_answers_400_from_the_api(client):
    work = project_with_work("stc3", annotators=1)
    client.force_login(work.annotators[0])
    item = work.assignments_of(work.annotators[0])[0]
    deep = b"[" * DEEP + b"]" * DEEP
    response = client.post(reverse("api-judgements", args=[item.pk]), data=deep, content_type="application/json")
    assert response.status_code == 400 and "nested too deeply" in response.json()["detail"]


@pytest.mark.parametrize("which", ["missing", "of another project", "beyond 64 bits"])
def test_lead_judgements_page_answers_404(client, which):
    work = project_with_work("stc3", slug="mine", annotators=1)
    other = project_with_work("dbdc", slug="theirs", annotators=1)
    dialogue_id = {
        "missing": Dialogue.objects.order_by("-pk").values_list("pk", flat=True).first() + 1000,
        "of another project": other.project.dialogues.first().pk,
        "beyond 64 bits": 1 << 64,
    }[which]
    client.force_login(work.lead)
    own = work.project.dialogues.first().pk
    assert client.get(f"/projects/mine/dialogues/{own}/judgements/").status_code == 200
    assert client.get(f"/projects/mine/dialogues/{dialogue_id}/judgements/").status_code == 404


def test_ids_beyond_64_bits_are_404_everywhere(client):
    work = project_with_work("stc3", slug="big", annotators=1)
    client.force_login(work.annotators[0])
    huge = str(1 << 64)
    for url in (f"/items/{huge}/", f"/api/assignments/{huge}/", f"/projects/big/runs/{huge}/per-dialogue.csv"):
        assert client.get(url).status_code == 404, url
    assert client.post(f"/items/{huge}/draft/", data=b"{}", content_type="application/json").status_code == 404
