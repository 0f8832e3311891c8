"""Nothing a project holds is forgotten by its archive: every model of every installed app is archived or named as
left out with the reason (``evaluation.archive.coverage``), and every field of an archived model is in the
archive's document or named as left out (or kept in another form) with the reason."""

from __future__ import annotations

import pytest
from django.apps import apps

from evaluation.archive.coverage import ARCHIVED, FIELDS_LEFT_OUT, FIELDS_RESTORED_AS, MODELS_LEFT_OUT
from evaluation.archive.export import project_archive_data
from tests.fixtures.full_project import full_project


def test_every_model_of_every_app_is_archived_or_left_out_with_a_reason():
    present = {m._meta.label for m in apps.get_models(include_auto_created=True)}
    named = set(ARCHIVED) | set(MODELS_LEFT_OUT)
    new = sorted(present - named)
    assert not new, (
        f"{', '.join(new)}: archive each in evaluation.archive (a part in evaluation/archive/parts/, named in "
        "coverage.ARCHIVED) or name it in coverage.MODELS_LEFT_OUT with the reason"
    )
    assert not sorted(named - present), "coverage names models that no longer exist"
    assert not set(ARCHIVED) & set(MODELS_LEFT_OUT)
    assert all(reason.strip() for reason in MODELS_LEFT_OUT.values())


def test_what_the_coverage_leaves_out_names_real_fields_with_reasons():
    for table in (FIELDS_LEFT_OUT, FIELDS_RESTORED_AS):
        for label, fields in table.items():
            assert label in ARCHIVED, label
            names = {f.name for f in apps.get_model(label)._meta.concrete_fields}
            for name, reason in fields.items():
                assert name in names and reason.strip(), f"{label}.{name}"


def test_every_archived_model_has_a_way_to_its_project():
    for label, lookup in ARCHIVED.items():
        model = apps.get_model(label)
        if lookup:
            model.objects.filter(**{lookup: None}).query  # noqa: B018 (a wrong lookup raises FieldError)


# where one row of each archived model sits in the document of the full STC-3 project, and the archive's names of
# its references (the rows kept as lists, judgements, gold counts and judges' labels, are positional: see
# evaluation.archive.export and parts.judges)
ROWS = {
    "annotator.Project": lambda d: d["project"],
    "annotator.Criterion": lambda d: d["criteria"][0],
    "annotator.Membership": lambda d: d["members"][0],
    "annotator.ImportBatch": lambda d: d["import_batches"][0],
    "annotator.Dialogue": lambda d: d["dialogues"][0],
    "annotator.Post": lambda d: d["dialogues"][0]["posts"][0],
    "annotator.Assignment": lambda d: d["assignments"][0],
    "annotator.QualitySettings": lambda d: d["quality_settings"],
    "annotator.AdaptiveBudget": lambda d: d["adaptive_budget"],
    "annotator.QualityItem": lambda d: d["quality_items"][0],
    "annotator.ExpectedAnswer": lambda d: d["quality_items"][0]["answers"][0],
    "annotator.Qualification": lambda d: d["qualifications"][0],
    "annotator.AnnotatorExclusion": lambda d: d["exclusions"][0],
    "annotator.Adjudication": lambda d: d["adjudications"][0],
    "annotator.Study": lambda d: d["studies"][0],
    "annotator.Participant": lambda d: d["studies"][0]["participants"][0],
    "annotator.ReleasedItem": lambda d: next(
        p["released_items"][0] for p in d["studies"][0]["participants"] if p["released_items"]
    ),
    "annotator.Judge": lambda d: d["judges"][0],
    "annotator.Webhook": lambda d: d["webhooks"][0],
    "scoring.Run": lambda d: d["runs"][0],
}
ARCHIVE_KEYS = {  # the archive's key, where it is not the field's name
    "annotator.Membership": {"user": "username"},
    "scoring.Run": {"gold_fingerprint": "gold_current"},
}
NESTED = {  # references a row holds by sitting inside its parent's part (a post in its dialogue...)
    ("annotator.Post", "dialogue"),
    ("annotator.ExpectedAnswer", "item"),
    ("annotator.Participant", "study"),
    ("annotator.ReleasedItem", "participant"),
}
POSITIONAL = {"annotator.Judgement", "annotator.GoldCount", "annotator.JudgeLabel"}
OTHER_PRESETS = {  # in the full projects of the presets that have them
    "annotator.Candidate": "pairwise",
    "annotator.PairwiseSettings": "pairwise",
    "annotator.Reordering": "coherence",
}


@pytest.mark.django_db
def test_every_field_of_an_archived_model_is_in_the_archive(tmp_path):
    project, _lead = full_project("stc3", tmp_path)
    document = project_archive_data(project)
    assert set(ROWS) | POSITIONAL | set(OTHER_PRESETS) == set(ARCHIVED)
    missing = []
    for label, row_of in ROWS.items():
        row = row_of(document)
        left_out = set(FIELDS_LEFT_OUT.get(label, {}))
        for field in apps.get_model(label)._meta.concrete_fields:
            implicit = field.name == "project" or (label, field.name) in NESTED  # (a row's project is the archive's)
            if field.primary_key or field.name in left_out or implicit:
                continue
            if ARCHIVE_KEYS.get(label, {}).get(field.name, field.name) not in row:
                missing.append(f"{label}.{field.name}")
    assert not missing, f"not in the archive: {', '.join(missing)} (archive them, or name them in coverage)"


# the one-row settings of a project, with the full project of a preset that has the row
SETTINGS_ROWS = {
    "annotator.Project": ("stc3", lambda d: d["project"]),
    "annotator.QualitySettings": ("stc3", lambda d: d["quality_settings"]),
    "annotator.AdaptiveBudget": ("stc3", lambda d: d["adaptive_budget"]),
    "annotator.PairwiseSettings": ("pairwise", lambda d: d["pairwise_settings"]),
}
AT_DEFAULT = {  # settings the full project leaves at their default, with the reason
    "annotator.Project": {"preset": "no default", "slug": "no default"},
    "annotator.AdaptiveBudget": {"adaptive": "adaptive hand-outs would change the work the full project does"},
    "annotator.PairwiseSettings": {
        "active_pairs": "active pairs would change the work the full project does",
    },
}


@pytest.mark.django_db
@pytest.mark.parametrize("preset", sorted({preset for preset, _row in SETTINGS_ROWS.values()}))
def test_the_full_project_sets_every_setting_away_from_its_default(preset, tmp_path):
    """A setting left at its default round-trips even when a restore drops it: the full project the round-trip
    test restores sets every one (a new setting fails here until the fixture sets it, or it is named above)."""
    project, _lead = full_project(preset, tmp_path)
    document = project_archive_data(project)
    at_default = []
    for label, (of_preset, row_of) in SETTINGS_ROWS.items():
        if of_preset != preset:
            continue
        row = row_of(document)
        for field in apps.get_model(label)._meta.concrete_fields:
            if field.primary_key or field.is_relation or field.name in AT_DEFAULT.get(label, {}):
                continue
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                continue
            if field.has_default() and row[field.name] == field.get_default():
                at_default.append(f"{label}.{field.name}")
    assert not at_default, f"at their default in tests/fixtures/full_project.py: {', '.join(at_default)}"
