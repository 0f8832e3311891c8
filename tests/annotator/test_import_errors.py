"""Bad input: a message naming file, dialogue and field; the database exactly as before."""

from __future__ import annotations

import json
import re
import zipfile

import pytest
from django.core.management import CommandError, call_command

from annotator.importers import InputError
from annotator.models import Assignment, Dialogue, GoldCount, Judgement, Membership, Post
from annotator.services.imports import dialogues_import
from tests.fixtures.collections import dbdc_dialogue, nlpcc_rows, stc3_dialogues, write_json, write_nlpcc_xlsx

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(
        reason=(
            "a refused import leaves the database as it was: the transaction undoes COPY's rows on PostgreSQL, the "
            "INSERTs on SQLite"
        )
    ),
]


def row_counts() -> dict[str, int]:
    return {m.__name__: m.objects.count() for m in (Dialogue, Post, Assignment, Judgement, Membership, GoldCount)}


@pytest.fixture
def stc3_project(make_project, tmp_path):
    """A project that already holds one dialogue, so 'unchanged' is not just 'empty'."""
    project = make_project("stc3")
    dialogues_import(project=project, paths=[write_json(tmp_path / "seed.json", [stc3_dialogues()[0]])])
    return project


def broken(mutate):
    data = stc3_dialogues()
    data[0]["id"] = "fresh"
    data[1]["id"] = "bad-dialogue"
    mutate(data[1])
    return data


STC3_CASES = [
    (
        "unknown nugget label",
        lambda d: d["annotations"][0]["nugget"].__setitem__(1, "HNUG0"),
        "annotations[0].nugget[1]",
        "'HNUG0' is not a value of nugget",
    ),
    (
        "customer label on a helpdesk turn",
        lambda d: d["annotations"][1]["nugget"].__setitem__(1, "CNUG"),
        "annotations[1].nugget[1]",
        "on a helpdesk unit",
    ),
    (
        "nugget list too short",
        lambda d: d["annotations"][0]["nugget"].pop(),
        "annotations[0].nugget",
        "1 nugget labels for 2 turns",
    ),
    (
        "quality outside the scale",
        lambda d: d["annotations"][1]["quality"].__setitem__("S", 3),
        "annotations[1].quality.S",
        "'3' is not a value of S",
    ),
    (
        "quality not a number",
        lambda d: d["annotations"][1]["quality"].__setitem__("E", "good"),
        "annotations[1].quality.E",
        "expected an integer score",
    ),
    ("missing field", lambda d: d["turns"][0].pop("utterances"), "turns[0].utterances", "is missing"),
    (
        "unknown criterion",
        lambda d: d["annotations"][0]["quality"].__setitem__("Q", 1),
        "annotations[0].quality.Q",
        "criterion 'Q' is not in project",
    ),
    ("unknown sender", lambda d: d["turns"][1].__setitem__("sender", "bot"), "turns[1].sender", "unknown sender"),
]


@pytest.mark.parametrize("case, mutate, field, message", STC3_CASES, ids=[c[0] for c in STC3_CASES])
def test_bad_stc3_record_names_file_record_field_and_changes_nothing(
    stc3_project, tmp_path, case, mutate, field, message
):
    path = write_json(tmp_path / "broken.json", broken(mutate))
    before = row_counts()
    with pytest.raises(InputError) as error:
        dialogues_import(project=stc3_project, paths=[path])
    text = str(error.value)
    assert str(path) in text and "dialogue bad-dialogue" in text and f"field {field}" in text
    assert message in text
    assert row_counts() == before


def test_malformed_json(stc3_project, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('[{"id": "x", "turns": [', encoding="utf-8")
    before = row_counts()
    with pytest.raises(InputError, match=r"broken\.json: malformed JSON"):
        dialogues_import(project=stc3_project, paths=[path])
    assert row_counts() == before


def test_duplicate_id_in_project_and_within_file(stc3_project, tmp_path):
    before = row_counts()
    again = write_json(tmp_path / "again.json", [stc3_dialogues()[1], stc3_dialogues()[0]])
    with pytest.raises(InputError, match=r"dialogue d1: field id: duplicate dialogue id"):
        dialogues_import(project=stc3_project, paths=[again])
    twice = write_json(tmp_path / "twice.json", [stc3_dialogues()[1], stc3_dialogues()[1]])
    with pytest.raises(InputError, match=r"dialogue d2: field id: duplicate"):
        dialogues_import(project=stc3_project, paths=[twice])
    assert row_counts() == before


def test_error_late_in_a_large_import_rolls_back_earlier_batches(stc3_project, tmp_path):
    # given 600 good dialogues (several write batches) followed by a bad one
    good = stc3_dialogues()[0]
    data = [dict(good, id=f"g{i}") for i in range(600)]
    bad = json.loads(json.dumps(good))
    bad["id"] = "last"
    bad["annotations"][0]["nugget"][0] = "XX"
    path = write_json(tmp_path / "big.json", data + [bad])
    before = row_counts()
    with pytest.raises(InputError, match="dialogue last"):
        dialogues_import(project=stc3_project, paths=[path], batch_size=100)
    assert row_counts() == before


def test_zip_with_foreign_file(make_project, tmp_path):
    project = make_project("dbdc")
    archive = tmp_path / "labels.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("a.log.json", json.dumps(dbdc_dialogue("a")))
        z.writestr("notes.txt", "hello")
    with pytest.raises(InputError, match=r"labels\.zip:notes\.txt: is not a DBDC \*\.log\.json file"):
        dialogues_import(project=project, paths=[archive])
    assert row_counts()["Dialogue"] == 0


@pytest.mark.parametrize("label, field", [("Z", "turns[2].annotations[1].breakdown")])
def test_dbdc_unknown_label_and_label_on_user_turn(make_project, tmp_path, label, field):
    project = make_project("dbdc")
    record = dbdc_dialogue("bd9")
    record["turns"][2]["annotations"][1]["breakdown"] = label
    with pytest.raises(InputError, match=re.escape(f"dialogue bd9: field {field}")):
        dialogues_import(project=project, paths=[write_json(tmp_path / "bd9.log.json", record)])
    record = dbdc_dialogue("bd8")
    record["turns"][1]["annotations"] = [{"annotator-id": "a1", "breakdown": "O"}]
    with pytest.raises(InputError, match="applies to S turns, this one is by U"):
        dialogues_import(project=project, paths=[write_json(tmp_path / "bd8.log.json", record)])
    assert row_counts()["Judgement"] == 0


@pytest.mark.parametrize(
    "where, value, field, message",
    [
        ("annotator-id", "a\x00x", "turns[4].annotations[2].annotator-id", "contains a NUL character"),
        ("annotator-id", "a" * 101, "turns[4].annotations[2].annotator-id", "at most 100 fit"),
        ("annotator-id", ["a3"], "turns[4].annotations[2].annotator-id", "expected str/int, got list"),
        ("breakdown", 3, "turns[4].annotations[2].breakdown", "expected str, got int"),
    ],
)
def test_dbdc_values_checked_at_once_name_the_one_at_fault(make_project, tmp_path, where, value, field, message):
    """The annotators' ids and the labels of a dialogue are checked all at once; the error still names the one
    annotation at fault (the last of the last turn here), and nothing is written."""
    project = make_project("dbdc")
    good, bad = dbdc_dialogue("fine"), dbdc_dialogue("bd7")
    bad["turns"][4]["annotations"][2][where] = value
    paths = [write_json(tmp_path / "fine.log.json", good), write_json(tmp_path / "bd7.log.json", bad)]
    with pytest.raises(InputError, match=re.escape(f"dialogue bd7: field {field}") + ".*" + re.escape(message)):
        dialogues_import(project=project, paths=paths)
    assert row_counts() == dict.fromkeys(row_counts(), 0)


@pytest.mark.parametrize(
    "first, field, message",
    [
        ("twice", "turns[2].annotations[1].breakdown", "annotator a1 judged this unit twice"),
        ("off the scale", "turns[2].annotations[0].breakdown", "'Z' is not a value of breakdown"),
    ],
)
def test_dbdc_labels_checked_at_once_name_the_first_at_fault(make_project, tmp_path, first, field, message):
    """A dialogue's labels are checked against the scales and for repeats all at once; with two faults the error
    names the first in the file (a repeated annotator, or a label off the scale), and nothing is written."""
    project = make_project("dbdc")
    record = dbdc_dialogue("bd6")
    annotations = record["turns"][2]["annotations"]
    if first == "twice":
        annotations[1]["annotator-id"] = "a1"  # repeats the unit's first annotator ...
        record["turns"][4]["annotations"][0]["breakdown"] = "Z"  # ... before a label off the scale
    else:
        annotations[0]["breakdown"] = "Z"  # a label off the scale ...
        annotations[2]["annotator-id"] = "a1"  # ... before a repeated annotator
    with pytest.raises(InputError, match=re.escape(f"dialogue bd6: field {field}") + ".*" + re.escape(message)):
        dialogues_import(project=project, paths=[write_json(tmp_path / "bd6.log.json", record)])
    assert row_counts() == dict.fromkeys(row_counts(), 0)


def test_nlpcc_bad_count_and_summary_mismatch(make_project, tmp_path):
    project = make_project("nlpcc")
    rows = nlpcc_rows()
    rows[1] = rows[1][:5] + (4,) + rows[1][6:]
    path = write_nlpcc_xlsx(tmp_path / "bad.xlsx", rows)
    with pytest.raises(InputError, match=r"bad\.xlsx: dialogue bot-a-0003: field 回复内容不含糊，不存在歧义: 4 yes"):
        dialogues_import(project=project, paths=[path])
    path = write_nlpcc_xlsx(tmp_path / "sum.xlsx", nlpcc_rows(), summary=[("bot-a", 5, 6)])
    with pytest.raises(InputError, match="summary says 5 severe errors for bot-a, items add up to 1"):
        dialogues_import(project=project, paths=[path])
    assert row_counts()["GoldCount"] == 0


def test_command_exits_non_zero_with_the_message(manage, tmp_path):
    manage("create_project", "cli", "--preset", "stc3", check=True)
    path = write_json(tmp_path / "broken.json", broken(lambda d: d["annotations"][0]["nugget"].pop()))
    result = manage("import_dialogues", "cli", str(path))
    assert result.returncode != 0
    assert "import failed, nothing was imported" in result.stderr
    assert "dialogue bad-dialogue: field annotations[0].nugget" in result.stderr
    assert Dialogue.objects.count() == 0


def test_call_command_raises_command_error(make_project, tmp_path):
    make_project("stc3", slug="cc")
    with pytest.raises(CommandError, match="field turns"):
        call_command("import_dialogues", "cc", str(write_json(tmp_path / "x.json", [{"id": "x", "turns": []}])))
