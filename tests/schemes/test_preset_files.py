"""The presets are scheme files: each file is valid under the published JSON Schema, and a preset project's scheme,
exported and re-imported, gives a project whose pages, statistics and exports equal the preset project's (on
the demo's dialogues for every preset, and on the real collections where the preset has one)."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
import yaml
from django.core.management import call_command
from django.utils import translation
from jsonschema import Draft202012Validator

from annotator.exporters import export_formats_of, export_gold
from annotator.models import Assignment, Criterion, Project
from annotator.presets import PRESETS
from annotator.presets.catalogue import PRESET_FILES
from annotator.presets.document import SCHEMA_PATH, scheme_document, scheme_read
from annotator.selectors.annotation import annotation_page
from annotator.selectors.glossary import label_glossary
from annotator.services.imports import dialogues_import
from annotator.services.judgements import judgements_save
from annotator.services.projects import project_create
from evaluation.services.statistics import project_statistics
from tests.factories import first_allowed_values, project_with_work
from tests.figures import figures_differences

pytestmark = pytest.mark.django_db

CRITERION_FIELDS = ("key", "label", "question", "unit", "values", "level", "speaker", "applies_to", "not_applicable")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_file_is_valid_and_is_the_preset(preset):
    document = yaml.safe_load((PRESET_FILES / f"{preset}.yaml").read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert list(Draft202012Validator(schema).iter_errors(document)) == []
    # the file is the preset's whole document: reading and writing it loses and adds nothing
    assert scheme_document(PRESETS[preset]) == document


def _reimported(project: Project, slug: str, tmp_path) -> Project:
    """A project made from ``project``'s scheme exported by ``manage.py export_scheme`` (YAML)."""
    path = tmp_path / f"{project.slug}.yaml"
    call_command("export_scheme", project.slug, "--output", str(path), stderr=io.StringIO())
    call_command("create_project", slug, "--scheme", str(path), stdout=io.StringIO())
    return Project.objects.get(slug=slug)


def _same_project(original: Project, again: Project) -> None:
    assert again.scheme == original.scheme and again.preset == original.preset
    assert (again.guidelines, again.annotators_per_dialogue) == (original.guidelines, original.annotators_per_dialogue)
    rows = [
        list(Criterion.objects.filter(project=p).order_by("position").values(*CRITERION_FIELDS))
        for p in (original, again)
    ]
    assert rows[0] == rows[1]


def _page(assignment, language: str) -> dict:
    """What an annotator reads on an item's page in ``language``: every question with its choices and keys,
    the guidelines and the glossary."""
    with translation.override(language):
        page = annotation_page(assignment)
        questions = [
            q for block in page.blocks for q in [*block.questions, *(q for post in block.posts for q in post.questions)]
        ] + page.dialogue_questions
        glossary = label_glossary(page)
        return {
            "questions": [
                (q.name, q.label, q.question, q.widget, q.where, q.choices, q.incremental) for q in questions
            ],
            "guidelines": page.guidelines,
            "left": page.left_speaker,
            "progress": page.progress_noun,
            "reorder": page.reorder_turns is not None,
            "candidates": page.candidates is not None,
            "glossary": [
                (c.label, c.question, c.definition, [(v.label, v.definition, v.letter) for v in c.values])
                for c in glossary.criteria
            ],
            "letters": glossary.letters,
        }


def _answer_everything(work) -> None:
    spec = PRESETS[work.project.preset]
    for person in work.annotators:
        for assignment in work.assignments_of(person):
            judgements_save(
                assignment_id=assignment.pk,
                user=person,
                values=first_allowed_values(assignment),
                reordering=list(assignment.shown_order) if spec.reordering else None,
                submit=True,
            )


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_preset_s_exported_scheme_gives_the_same_project(preset, tmp_path):
    # given a project of the preset with the demo's dialogues, and one made from its exported scheme
    original = project_with_work(preset, slug=f"{preset}-a", annotators=2)
    again_scheme = scheme_read(_exported(original.project, tmp_path), "exported.yaml")
    again = project_with_work(preset, slug=f"{preset}-b", annotators=2, scheme=again_scheme)

    # then the two projects hold the same scheme and criteria
    _same_project(original.project, again.project)
    # and their pages say the same in every language, item by item
    for person_a, person_b in zip(original.annotators, again.annotators):
        for a, b in zip(original.assignments_of(person_a), again.assignments_of(person_b)):
            assert a.dialogue.external_id == b.dialogue.external_id
            b.shown_first = a.shown_first  # which response a comparison shows first is drawn per assignment
            Assignment.objects.filter(pk=b.pk).update(shown_first=a.shown_first)
            for language in ("en", "ja", "zh-hans"):
                assert _page(a, language) == _page(b, language), (a.dialogue.external_id, language)
    # and, answered alike, their statistics and every export that fits the scheme are the same
    _answer_everything(original)
    _answer_everything(again)
    figures = [project_statistics(p.project)["criteria"] for p in (again, original)]
    assert not figures_differences(*figures)
    assert export_formats_of(again.project) == export_formats_of(original.project)
    for fmt in export_formats_of(original.project):
        assert _export(again.project, fmt) == _export(original.project, fmt), fmt


def _export(project: Project, fmt: str) -> dict[str, bytes]:
    """An export's files (a zip's members) with the project's slug, which the usernames start with, as SLUG."""
    raw = export_gold(project=project, fmt=fmt)
    files = (
        {n: z.read(n) for z in [zipfile.ZipFile(io.BytesIO(raw))] for n in z.namelist()} if fmt == "dbdc" else {"": raw}
    )
    return {name: body.replace(project.slug.encode(), b"SLUG") for name, body in files.items()}


def _exported(project: Project, tmp_path) -> str:
    path = tmp_path / "exported.yaml"
    call_command("export_scheme", project.slug, "--output", str(path), stderr=io.StringIO())
    return path.read_text(encoding="utf-8")


def _real_pair(preset: str, paths, tmp_path) -> tuple[Project, Project]:
    original = project_create(slug=f"real-{preset}-a", preset=preset)
    again = _reimported(original, f"real-{preset}-b", tmp_path)
    _same_project(original, again)
    for project in (original, again):
        dialogues_import(project=project, paths=paths)
    return original, again


def _same_figures_and_exports(original: Project, again: Project) -> None:
    assert not figures_differences(project_statistics(again)["criteria"], project_statistics(original)["criteria"])
    for fmt in export_formats_of(original):
        assert _export(again, fmt) == _export(original, fmt), fmt


@pytest.mark.shared_data
def test_stc3_real_collection_through_the_exported_scheme(stc3_dir, tmp_path):
    source = json.loads((stc3_dir / "train_data_en.json").read_text(encoding="utf-8"))[:200]
    path = tmp_path / "train_data_en_200.json"
    path.write_text(json.dumps(source, ensure_ascii=False), encoding="utf-8")
    original, again = _real_pair("stc3", [path], tmp_path)
    assert again.dialogues.count() == 200
    _same_figures_and_exports(original, again)


@pytest.mark.shared_data
def test_dbdc_real_collection_through_the_exported_scheme(dbdc_ja_dir, tmp_path):
    original, again = _real_pair("dbdc", [dbdc_ja_dir / "eval"], tmp_path)
    assert again.dialogues.count() == 150
    _same_figures_and_exports(original, again)


@pytest.mark.shared_data
def test_nlpcc_real_collection_through_the_exported_scheme(shared_data, tmp_path):
    original, again = _real_pair("nlpcc", [shared_data / "nlpcc2019_task3_sample.xlsx"], tmp_path)
    assert again.dialogues.count() == 200
    _same_figures_and_exports(original, again)
