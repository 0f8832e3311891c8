"""The full project archive: exact round trip for every preset, commands, the API, and refused archives."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.test import APIClient

from annotator.exporters import export_gold
from annotator.models import (
    AdaptiveBudget,
    Assignment,
    AssignmentStatus,
    Dialogue,
    GoldCount,
    Judgement,
    Project,
    QualitySettings,
    Reordering,
)
from annotator.presets import PRESETS
from annotator.services.imports import dialogues_import
from annotator.services.judgements import judgements_save
from annotator.services.projects import membership_add, membership_remove
from evaluation.archive.export import ARCHIVE_MEMBER, project_archive, project_archive_data
from evaluation.archive.fields import fields_export, plain_fields
from evaluation.archive.restore import project_archive_import
from evaluation.models import Run, RunStatus
from evaluation.runs.services.scoring import run_score
from evaluation.runs.services.upload import run_upload
from scoring.errors import InputError
from tests.factories import first_allowed_values, project_with_work, user_make
from tests.fixtures.collections import nlpcc_rows, write_nlpcc_xlsx
from tests.reference_scoring import random_stc3_run

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(
        reason=(
            "a restore inserts the judgements with plain multi-row INSERTs, and every JSON column round-trips through"
            " jsonb on PostgreSQL and text on SQLite"
        )
    ),
]

GOLD_FORMATS = {"stc3": ["stc3"], "dbdc": ["dbdc"], "pairwise": ["pairwise", "preference-pairs"]}


def finished_project(preset: str, tmp_path, slug: str | None = None):
    """The demo data of ``preset`` with finished work: every item submitted but one draft, a member who left,
    reorderings where the preset has them, gold counts (NLPCC), a scored run and one waiting to be scored."""
    work = project_with_work(preset, slug=slug or f"arch-{preset}", annotators=2)
    project = work.project
    if preset == "nlpcc":
        dialogues_import(project=project, paths=[write_nlpcc_xlsx(tmp_path / "n.xlsx", nlpcc_rows())])
    leaver = user_make(f"{project.slug}-leaver")
    membership_add(project=project, user=leaver, role="annotator")
    membership_remove(project=project, user_id=leaver.pk)
    for n, person in enumerate(work.annotators):
        items = work.assignments_of(person)
        for i, item in enumerate(items):
            reordering = list(item.shown_order) if PRESETS[preset].reordering else None
            draft = n == 0 and i == len(items) - 1
            values = first_allowed_values(item)
            judgements_save(
                assignment_id=item.pk,
                user=person,
                values=values[:1] if draft else values,
                reordering=reordering,
                seconds=7 + i,
                submit=not draft,
            )
    scheme = PRESETS[preset].run_scheme
    if scheme is not None and not scheme.uploads:
        run_score(project=project)
    elif preset == "stc3":
        run = random_stc3_run(json.loads(export_gold(project=project, fmt="stc3")))
        run_score(project=project, files=[("run.json", json.dumps(run).encode())], name="random")
    if scheme is not None and scheme.uploads:
        run_upload(project=project, name="waiting", files=[("later.json", b'[{"id": "x"}]')])  # kept until scored
    return project


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_archive_into_an_empty_database_and_back_gives_the_same_bytes(preset, tmp_path):
    project = finished_project(preset, tmp_path)
    gold = {fmt: export_gold(project=project, fmt=fmt) for fmt in ["distributions-json", *GOLD_FORMATS.get(preset, [])]}
    first = project_archive(project)
    data = project_archive_data(project)
    # the archive holds finished work, a draft, a member who left, and runs
    statuses = {a["status"] for a in data["assignments"]}
    assert {AssignmentStatus.SUBMITTED, AssignmentStatus.IN_PROGRESS} <= statuses
    assert len(data["judgements"]) == Judgement.objects.filter(assignment__dialogue__project=project).count() > 0
    assert any(not m["active"] for m in data["members"])
    if PRESETS[preset].run_scheme is not None and PRESETS[preset].run_scheme.uploads:
        assert {r["name"] for r in data["runs"]} >= {"waiting"}
        assert any(r["source"] for r in data["runs"])
    if PRESETS[preset].reordering:
        assert sum(a["reordering"] is not None for a in data["assignments"]) > 0
        assert any(r["scores"] for r in data["runs"])
    if preset == "stc3":
        assert next(r for r in data["runs"] if r["name"] == "random")["per_dialogue"]
    if preset == "nlpcc":
        assert len(data["gold_counts"]) == GoldCount.objects.filter(dialogue__project=project).count() > 0

    # when the database is emptied and the archive imported into it
    Project.objects.all().delete()
    get_user_model().objects.all().delete()
    assert Dialogue.objects.count() == Assignment.objects.count() == Run.objects.count() == 0
    again = project_archive_import(raw=first, display="backup.zip").project

    # then exporting it again gives the same bytes, and the community exports are unchanged too
    assert project_archive_data(again) == data  # a readable difference first, then the bytes
    assert project_archive(again) == first
    assert {fmt: export_gold(project=again, fmt=fmt) for fmt in gold} == gold
    if PRESETS[preset].run_scheme is not None and PRESETS[preset].run_scheme.uploads:
        waiting = Run.objects.get(project=again, name="waiting")
        assert waiting.status == RunStatus.PENDING and zipfile.ZipFile(io.BytesIO(bytes(waiting.source))).namelist()
    assert not get_user_model().objects.get(username=data["members"][0]["username"]).has_usable_password()


def test_commands_export_and_import_under_a_new_slug(tmp_path, capsys):
    project = finished_project("coherence", tmp_path, slug="orig")
    path = tmp_path / "orig.zip"
    call_command("export_project", "orig", "--output", str(path))
    call_command("import_project", str(path), "--slug", "copy")
    assert "imported project copy" in capsys.readouterr().out
    original, copy = project_archive_data(project), project_archive_data(Project.objects.get(slug="copy"))
    assert copy["project"].pop("slug") == "copy" and original["project"].pop("slug") == "orig"
    assert copy == original
    assert Reordering.objects.filter(assignment__dialogue__project__slug="copy").count() > 0
    with pytest.raises(CommandError, match="a project 'copy' already exists"):
        call_command("import_project", str(path), "--slug", "copy")


def archive_with(mutate, tmp_path) -> bytes:
    project = finished_project("stc3", tmp_path, slug="src")
    data = project_archive_data(project)
    mutate(data)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(ARCHIVE_MEMBER, json.dumps(data))
    return buffer.getvalue()


def with_settings(document: dict, model, **values) -> None:
    """The archive's one-row setting ``model`` at the model's defaults, but ``values``."""
    row = fields_export(model().__dict__ | {"updated_at": timezone.now()}, plain_fields(model))
    key = {QualitySettings: "quality_settings", AdaptiveBudget: "adaptive_budget"}[model]
    document[key] = row | values


BAD_ARCHIVES = [
    ("a value off the scale", lambda d: d["judgements"][0].__setitem__(3, "7"), "judgements[0]", "is not a value"),
    # each field of a judgement row (most rows are read by restore._PlainJudgements, the others by _judgement)
    ("a judgement's unknown assignment", lambda d: d["judgements"][0].__setitem__(0, 10**6), "judgements[0][0]",
     "is not in the archive"),
    ("a judgement's unknown criterion", lambda d: d["judgements"][0].__setitem__(1, "nope"), "judgements[0][1]",
     "is not in the archive"),
    ("a unit as text", lambda d: d["judgements"][0].__setitem__(2, "0"), "judgements[0].unit", "expected int"),
    ("a unit not in the dialogue", lambda d: d["judgements"][0].__setitem__(2, 999), "judgements[0]", "999"),
    ("NUL in a value", lambda d: d["judgements"][0].__setitem__(3, "1\x00"), "judgements[0]", "NUL"),
    ("a judgement's extra not finite", lambda d: d["judgements"][0].__setitem__(4, {"x": float("nan")}),
     "judgements[0]", "finite"),
    ("a judgement's time without a zone", lambda d: d["judgements"][0].__setitem__(5, "2026-01-01T00:00:00"),
     "judgements[0]", "needs a time zone"),
    ("a negative revision", lambda d: d["judgements"][0].__setitem__(6, -1), "judgements[0][6]", "is outside"),
    ("a candidate shown first off a, b", lambda d: d["judgements"][0].__setitem__(7, "c"), "judgements[0][7]",
     "is not one of"),
    ("a short judgement row", lambda d: d["judgements"][0].pop(), "judgements[0]", "expected a list of 8 values"),
    ("an unknown dialogue", lambda d: d["assignments"][0].__setitem__("dialogue", "nope"), "assignments[0].dialogue",
     "is not in the archive"),
    ("an unknown preset", lambda d: d["project"].__setitem__("preset", "chess"), "project.preset", "unknown preset"),
    ("NUL in a post", lambda d: d["dialogues"][0]["posts"][0].__setitem__("text", "a\x00"), "posts[0].text", "NUL"),
    ("a bad time", lambda d: d["assignments"][0].__setitem__("started_at", "yesterday"), "started_at", "ISO 8601"),
    ("a missing part", lambda d: d.pop("criteria"), "criteria", "is missing"),
    ("unknown annotators", lambda d: d["project"].__setitem__("annotators_are", "robots"), "project.annotators_are",
     "is not one of"),
    ("a quality bound", lambda d: with_settings(d, QualitySettings, control_rate=0.9),
     "quality_settings.control_rate", "0.5"),
    ("label gold off the criteria", lambda d: with_settings(d, AdaptiveBudget, label_gold={"nope": 0.5}),
     "adaptive_budget.label_gold", "no criterion nope"),
    ("label gold's share", lambda d: with_settings(d, AdaptiveBudget, label_gold={d["criteria"][0]["key"]: 2}),
     "adaptive_budget.label_gold", "between 0 and 1"),
    ("label gold's error rate", lambda d: with_settings(d, AdaptiveBudget, delta=0.9), "adaptive_budget.delta",
     "0.5"),
    ("a minimum above the maximum", lambda d: with_settings(d, AdaptiveBudget, min_k=5, max_k=3),
     "adaptive_budget.min_k", "cannot exceed the maximum"),
]  # fmt: skip


@pytest.mark.parametrize("case, mutate, field, message", BAD_ARCHIVES, ids=[c[0] for c in BAD_ARCHIVES])
def test_a_bad_archive_is_refused_naming_the_field_and_nothing_is_created(tmp_path, case, mutate, field, message):
    raw = archive_with(mutate, tmp_path)
    before = (Project.objects.count(), Dialogue.objects.count(), get_user_model().objects.count())
    with pytest.raises(InputError) as error:
        project_archive_import(raw=raw, display="bad.zip", slug="other")
    assert "bad.zip" in str(error.value) and field in str(error.value) and message in str(error.value)
    assert (Project.objects.count(), Dialogue.objects.count(), get_user_model().objects.count()) == before


@pytest.mark.eager_tasks(reason="the archive its job wrote, served by the API and imported again")
def test_api_archive_for_leads_and_import_as_a_new_project(tmp_path):
    project = finished_project("dbdc", tmp_path, slug="api-src")
    lead = project.memberships.get(role="lead").user
    annotator = project.memberships.filter(role="annotator").first().user
    api = APIClient()
    api.force_authenticate(annotator)
    assert api.get("/api/projects/api-src/archive/").status_code == 403
    junk = {"file": SimpleUploadedFile("a.zip", b"x")}
    assert api.post("/api/archives/", junk, format="multipart").status_code == 403
    api.force_authenticate(lead)
    download = api.get("/api/projects/api-src/archive/")
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
    body = b"".join(download.streaming_content)  # streamed: read once
    assert download.streaming and body == project_archive(project)
    upload = {"file": SimpleUploadedFile("a.zip", body), "slug": "api-copy"}
    created = api.post("/api/archives/", upload, format="multipart")
    assert created.status_code == 201 and created.json() == {"slug": "api-copy", "notes": []}
    assert api.get("/api/projects/api-copy/").json()["role"] == "lead"
    assert Dialogue.objects.filter(project__slug="api-copy").count() == project.dialogues.count()
    refused = api.post("/api/archives/", {"file": SimpleUploadedFile("junk.zip", b"PK junk")}, format="multipart")
    assert refused.status_code == 400 and "junk.zip" in refused.json()["detail"]
