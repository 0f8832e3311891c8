"""Imports fit the project: every preset refuses a file of each other community format and a JSON
lines file whose speakers it does not label, naming the file and the dialogue, and nothing changes."""

from __future__ import annotations

import json

import pytest

from annotator.importers import InputError
from annotator.models import Assignment, Dialogue, GoldCount, ImportBatch, Judgement, Membership, Post
from annotator.services.demo import DEMO_DIR
from annotator.services.imports import dialogues_import
from tests.factories import DEMO_FILES
from tests.fixtures.collections import dbdc_dialogue, nlpcc_rows, stc3_dialogues, write_json, write_nlpcc_xlsx
from tests.pairwise.data import pairwise_items, write_lines

pytestmark = pytest.mark.django_db

TABLES = (Dialogue, Post, Assignment, Judgement, Membership, GoldCount, ImportBatch)


def row_counts() -> dict[str, int]:
    return {m.__name__: m.objects.count() for m in TABLES}


def jsonl(path, speakers: tuple[str, str], dialogue_id: str = "wrong-1"):
    turns = [{"speaker": speakers[t % 2], "text": f"turn {t}"} for t in range(4)]
    path.write_text(json.dumps({"id": dialogue_id, "turns": turns}) + "\n", encoding="utf-8")
    return path


def community_file(fmt: str, tmp_path):
    """(path, first dialogue id) of a small file in each community format."""
    if fmt == "stc3":
        return write_json(tmp_path / "train_data_en.json", stc3_dialogues()), "d1"
    if fmt == "dbdc":
        return write_json(tmp_path / "bd1.log.json", dbdc_dialogue("bd1")), "bd1"
    if fmt == "pairwise":
        return write_lines(tmp_path / "comparisons.jsonl", pairwise_items(2)), "c1"
    return write_nlpcc_xlsx(tmp_path / "nlpcc.xlsx", nlpcc_rows()), "bot-a-0002"


# What each preset says it needs when given a file of another format ("Detect").
REFUSALS = {
    ("dch1", "stc3"): "is a dialogue of the STC-3 / DialEval JSON format, and DCH-1 helpdesk projects take JSON lines",
    ("dch1", "dbdc"): "has speakers S and U: DCH-1 helpdesk projects label dialogues between customer and helpdesk",
    ("dch1", "nlpcc"): "has speakers user and system: DCH-1 helpdesk projects label dialogues between customer and",
    ("stc3", "dbdc"): "has speakers S and U: STC-3 / DialEval projects label dialogues between customer and helpdesk",
    ("stc3", "nlpcc"): "has speakers user and system: STC-3 / DialEval projects label dialogues between customer",
    ("coherence", "stc3"): "is a dialogue of the STC-3 / DialEval JSON format, and Dialogue coherence projects take",
    ("coherence", "dbdc"): "is a dialogue of the DBDC3 log format, and Dialogue coherence projects take JSON lines",
    ("coherence", "nlpcc"): "is a dialogue of the NLPCC xlsx format, and Dialogue coherence projects take JSON lines",
    ("dbdc", "stc3"): (
        "has no system turn by S (its speakers are customer and helpdesk): Dialogue breakdown projects label "
        "system turns by S"
    ),
    ("dbdc", "nlpcc"): "has no system turn by S (its speakers are user and system): Dialogue breakdown projects",
    ("nlpcc", "stc3"): "has no reply by system (its speakers are customer and helpdesk): NLPCC open domain projects",
    ("nlpcc", "dbdc"): "has no reply by system (its speakers are S and U): NLPCC open domain projects label replies",
    # comparisons are not dialogues, nor dialogues comparisons
    **{
        (preset, "pairwise"): f"is a comparison of two responses, and {label} projects judge dialogues, not comparisons"
        for preset, label in [
            ("dch1", "DCH-1 helpdesk"),
            ("stc3", "STC-3 / DialEval"),
            ("coherence", "Dialogue coherence"),
            ("dbdc", "Dialogue breakdown"),
            ("nlpcc", "NLPCC open domain"),
        ]
    },
    **{
        ("pairwise", fmt): "has no candidates: Pairwise comparison projects compare two candidate responses"
        for fmt in ("stc3", "dbdc", "nlpcc")
    },
}
WRONG_SPEAKERS = {
    "dch1": (("S", "U"), "has speakers S and U: DCH-1 helpdesk projects label dialogues between customer and helpdesk"),
    "stc3": (("U", "S"), "has speakers U and S: STC-3 / DialEval projects label dialogues between customer and"),
    "dbdc": (("customer", "helpdesk"), "has no system turn by S (its speakers are customer and helpdesk)"),
    "nlpcc": (("A", "B"), "has no reply by system (its speakers are A and B): NLPCC open domain projects label"),
}


@pytest.fixture
def seeded(make_project):
    """A project of the preset holding its demo dialogues, so that 'unchanged' is not just 'empty'."""

    def make(preset: str):
        project = make_project(preset)
        dialogues_import(project=project, paths=[DEMO_DIR / f for f in DEMO_FILES[preset]], language="en")
        return project

    return make


@pytest.mark.parametrize("preset, fmt", sorted(REFUSALS), ids=[f"{p}-refuses-{f}" for p, f in sorted(REFUSALS)])
def test_each_preset_refuses_a_file_of_each_other_format(seeded, tmp_path, preset, fmt):
    # given a project of the preset with dialogues of its own, and a file of another community format
    project = seeded(preset)
    path, first = community_file(fmt, tmp_path)
    before = row_counts()
    # when it is imported with "Detect"
    with pytest.raises(InputError) as refused:
        dialogues_import(project=project, paths=[path])
    # then the message names the file and the first dialogue and says what the preset needs; nothing changed
    assert str(refused.value).startswith(f"{path}: dialogue {first}: ")
    assert REFUSALS[preset, fmt] in str(refused.value)
    assert row_counts() == before


def test_every_preset_and_other_format_is_covered():
    from annotator.importers import FORMATS
    from annotator.presets import PRESETS
    from annotator.services.import_fit import ALWAYS_FIT

    community = [f for f in FORMATS if f != "auto" and f not in ALWAYS_FIT]  # JSON lines and chat fit every scheme
    assert {(p, f) for p, spec in PRESETS.items() for f in community if f not in spec.formats} == set(REFUSALS)


@pytest.mark.parametrize("preset", sorted(WRONG_SPEAKERS))
def test_a_json_lines_file_with_speakers_the_preset_does_not_label_is_refused(seeded, tmp_path, preset):
    project = seeded(preset)
    speakers, message = WRONG_SPEAKERS[preset]
    path = jsonl(tmp_path / "new.jsonl", speakers)
    before = row_counts()
    with pytest.raises(InputError) as refused:
        dialogues_import(project=project, paths=[path])
    assert str(refused.value).startswith(f"{path}: dialogue wrong-1: ")
    assert message in str(refused.value)
    assert row_counts() == before


def test_the_first_offending_dialogue_is_named_after_good_ones(seeded, tmp_path):
    project = seeded("dbdc")
    good = {"id": "fine", "turns": [{"speaker": "U", "text": "hi"}, {"speaker": "S", "text": "hello"}]}
    bad = {"id": "no-system", "turns": [{"speaker": "U", "text": "anyone?"}]}
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in (good, bad, dict(bad, id="later"))) + "\n")
    before = row_counts()
    with pytest.raises(InputError, match=r"mixed\.jsonl: dialogue no-system: has no system turn by S"):
        dialogues_import(project=project, paths=[path])
    assert row_counts() == before


def test_coherence_takes_any_speakers(seeded, tmp_path):
    project = seeded("coherence")
    report = dialogues_import(project=project, paths=[jsonl(tmp_path / "any.jsonl", ("Ann", "Bob"))])
    assert report.dialogues == 1
    assert set(Post.objects.filter(dialogue__external_id="wrong-1").values_list("speaker", flat=True)) == {"Ann", "Bob"}


def test_a_format_chosen_by_name_imports_dialogues_that_fit(seeded, tmp_path):
    # given STC-3 dialogues without annotations: customer/helpdesk dialogues a DCH-1 project can judge
    project = seeded("dch1")
    data = [{k: v for k, v in d.items() if k != "annotations"} for d in stc3_dialogues()]
    path = write_json(tmp_path / "test_data_en.json", data)
    with pytest.raises(InputError, match="choose STC-3 / DialEval JSON as the format"):
        dialogues_import(project=project, paths=[path])
    # when the lead chooses the format by name, the dialogues are imported
    report = dialogues_import(project=project, paths=[path], fmt="stc3")
    assert report.dialogues == 2
    assert ImportBatch.objects.get(pk=report.batch_id).format == "stc3"


def test_annotations_of_another_preset_are_still_refused_when_the_format_is_chosen(seeded, tmp_path):
    project = seeded("coherence")
    path = write_json(tmp_path / "train.json", stc3_dialogues())
    before = row_counts()
    with pytest.raises(InputError, match=r"dialogue d1: field annotations\[0\]\.quality\.A: criterion 'A' is not in"):
        dialogues_import(project=project, paths=[path], fmt="stc3")
    assert row_counts() == before


def test_the_preset_own_formats_still_import(make_project, tmp_path):
    for preset, fmt in (("stc3", "stc3"), ("dbdc", "dbdc"), ("nlpcc", "nlpcc")):
        path, _first = community_file(fmt, tmp_path)
        assert dialogues_import(project=make_project(preset), paths=[path]).dialogues >= 1


def test_a_json_file_that_is_not_utf8_is_named(make_project, tmp_path):
    project = make_project("stc3")
    path = tmp_path / "latin1.json"
    path.write_bytes(json.dumps([{"id": "é", "turns": []}], ensure_ascii=False).encode("latin-1"))
    with pytest.raises(InputError) as refused:
        dialogues_import(project=project, paths=[path])
    assert str(refused.value) == (
        f"{path}: is not UTF-8 text, which JSON files must be; save it as UTF-8 and upload it again"
    )
    utf16 = tmp_path / "utf16.json"
    utf16.write_bytes(json.dumps(stc3_dialogues()).encode("utf-16"))
    with pytest.raises(InputError, match=r"utf16\.json: is not UTF-8 text"):
        dialogues_import(project=project, paths=[utf16])


def test_an_unknown_format_asks_for_a_choice_without_command_line_flags(make_project, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    with pytest.raises(InputError) as refused:
        dialogues_import(project=make_project("stc3"), paths=[path])
    assert "--" not in str(refused.value)
    assert "choose its format (STC-3 / DialEval JSON, DBDC3 *.log.json or a zip of them" in str(refused.value)


def test_an_xlsx_without_the_expected_columns_names_them(make_project, tmp_path):
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.active.append(["问题", "回答", "机器人"])
    path = tmp_path / "short.xlsx"
    workbook.save(path)
    with pytest.raises(InputError) as refused:
        dialogues_import(project=make_project("nlpcc"), paths=[path])
    assert "short.xlsx: field header: has no columns 参与总人数, 特殊标注" in str(refused.value)
