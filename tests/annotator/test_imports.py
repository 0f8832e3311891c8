"""Importing every format: what lands in the database, and exports that reproduce the source."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from annotator.exporters import export_gold
from annotator.models import Assignment, Dialogue, GoldCount, Judgement, Membership, Post
from annotator.services.blocks import utterance_blocks
from annotator.services.imports import dialogues_import
from tests.fixtures.collections import (
    dbdc_dialogue,
    nlpcc_rows,
    stc3_dialogues,
    write_json,
    write_nlpcc_xlsx,
)

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(
        reason=(
            "an import writes through COPY on PostgreSQL and multi-row INSERTs on SQLite "
            "(annotator.services.imports.copy_rows)"
        )
    ),
]


def test_utterance_blocks_are_maximal_runs_of_one_speaker():
    assert utterance_blocks(["c", "c", "h", "c", "c", "c", "h"]) == [0, 0, 1, 2, 2, 2, 3]
    assert utterance_blocks([]) == []


def test_stc3_import_creates_posts_blocks_annotators_and_judgements(make_project, tmp_path):
    # given an STC-3 file with two dialogues and two annotations each
    project = make_project("stc3")
    path = write_json(tmp_path / "train_data_en.json", stc3_dialogues())
    # when it is imported
    report = dialogues_import(project=project, paths=[path])
    # then posts keep their turns as utterance blocks and each annotation position is an imported annotator
    assert (report.dialogues, report.posts, report.annotators_created) == (2, 6, 2)
    d1 = Dialogue.objects.get(project=project, external_id="d1")
    assert d1.language == "en"
    assert list(d1.posts.values_list("speaker", "utterance_block", "source_turn_index")) == [
        ("customer", 0, 0),
        ("customer", 0, 0),
        ("helpdesk", 1, 1),
        ("customer", 2, 2),
    ]
    keys = list(
        Membership.objects.filter(project=project, imported=True).order_by("rank").values_list("source_key", flat=True)
    )
    assert keys == ["1", "2"]
    assert Judgement.objects.filter(assignment__dialogue=d1).count() == 2 * (3 + 3)
    nugget = Judgement.objects.get(
        assignment__dialogue=d1, assignment__annotator__memberships__source_key="1", criterion__key="nugget", unit=1
    )
    assert nugget.value == "HNUG*"


def test_stc3_round_trip_reproduces_the_file(make_project, tmp_path):
    project = make_project("stc3")
    source = stc3_dialogues() + [{"id": "no-annotations", "turns": [{"sender": "customer", "utterances": ["x"]}]}]
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", source)])
    assert json.loads(export_gold(project=project, fmt="stc3")) == source


def test_dbdc_zip_round_trip_keeps_fields_and_annotator_order(make_project, tmp_path):
    project = make_project("dbdc")
    archive = tmp_path / "run.zip"
    sources = {"en/bd1.log.json": dbdc_dialogue("bd1"), "en/bd2.log.json": dbdc_dialogue("bd2", ("X", "X", "O"))}
    with zipfile.ZipFile(archive, "w") as z:
        for name, record in sources.items():
            z.writestr(name, json.dumps(record))
    report = dialogues_import(project=project, paths=[archive])
    assert (report.dialogues, report.judgements, report.annotators_created) == (2, 12, 3)
    # the breakdown unit is the system turn's post position
    assert set(Judgement.objects.values_list("unit", flat=True)) == {2, 4}
    exported = zipfile.ZipFile(io.BytesIO(export_gold(project=project, fmt="dbdc")))
    # members are named by the dialogue id, flat (no folders: tests/annotator/test_zip_slip.py)
    assert sorted(exported.namelist()) == ["bd1.log.json", "bd2.log.json"]
    for name, record in sources.items():
        assert json.loads(exported.read(name.removeprefix("en/"))) == record


def test_dbdc_folder_and_single_file(make_project, tmp_path):
    project = make_project("dbdc")
    folder = tmp_path / "eval"
    folder.mkdir()
    write_json(folder / "a.log.json", dbdc_dialogue("a"))
    single = write_json(tmp_path / "b.log.json", dbdc_dialogue("b"))
    report = dialogues_import(project=project, paths=[folder, single])
    assert report.dialogues == 2
    assert set(Dialogue.objects.values_list("external_id", flat=True)) == {"a", "b"}


def test_dbdc_system_is_the_folder_of_each_log_never_the_users_speaker_id(make_project, tmp_path):
    """DBDC3 keeps each system's logs in a folder named after it and the dialogue count (``CIC_50``); the
    logs' ``speaker-id`` is the human user's id. A log imported alone names no system."""
    project = make_project("dbdc")
    for folder, name in (("CIC_50", "c1"), ("IRIS_100", "i1"), ("IRIS_100", "i2")):
        (tmp_path / "eval" / folder).mkdir(parents=True, exist_ok=True)
        write_json(tmp_path / "eval" / folder / f"{name}.log.json", {**dbdc_dialogue(name), "speaker-id": "user-17"})
    single = write_json(tmp_path / "alone.log.json", dbdc_dialogue("alone"))
    dialogues_import(project=project, paths=[tmp_path / "eval", single])
    systems = {d.external_id: d.source_meta.get("system") for d in Dialogue.objects.filter(project=project)}
    assert systems == {"c1": "CIC", "i1": "IRIS", "i2": "IRIS", "alone": None}
    exported = json.loads(zipfile.ZipFile(io.BytesIO(export_gold(project=project, fmt="dbdc"))).read("c1.log.json"))
    assert exported["speaker-id"] == "user-17" and "system" not in exported  # the source's fields, as they were


def test_nlpcc_xlsx_imports_counts_apart_from_judgements(make_project, tmp_path):
    project = make_project("nlpcc")
    path = write_nlpcc_xlsx(tmp_path / "sample.xlsx", nlpcc_rows(), summary=[("bot-a", 1, 6), ("bot-b", 0, 3)])
    report = dialogues_import(project=project, paths=[path])
    assert (report.dialogues, report.judgements, report.gold_counts) == (3, 0, 3 * 10 * 2)
    assert not Assignment.objects.exists()
    item = Dialogue.objects.get(external_id="bot-a-0003")
    assert item.source_meta["system"] == "bot-a"
    assert list(item.posts.values_list("speaker", "text")) == [("user", "q2"), ("system", "r2")]
    yes = dict(GoldCount.objects.filter(dialogue=item, value="yes").values_list("criterion__key", "count"))
    assert (yes["severe_error"], yes["not_ambiguous"], yes["natural_style"], yes["related_entities"]) == (1, 0, 1, 1)
    no = GoldCount.objects.get(dialogue=item, criterion__key="severe_error", value="no")
    assert (no.count, no.n_annotators) == (2, 3)


def test_jsonl_derives_utterance_blocks(make_project, tmp_path):
    project = make_project("dch1")
    lines = [
        {
            "id": 7,
            "language": "zh",
            "meta": {"source": "weibo"},
            "turns": [
                {"speaker": "customer", "text": "a"},
                {"speaker": "customer", "text": "b"},
                {"speaker": "helpdesk", "text": "c"},
            ],
        }
    ]
    path = tmp_path / "new.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    dialogues_import(project=project, paths=[path])
    dialogue = Dialogue.objects.get(external_id="7")
    assert (dialogue.language, dialogue.source_meta["meta"]) == ("zh", {"source": "weibo"})
    assert list(Post.objects.filter(dialogue=dialogue).values_list("utterance_block", flat=True)) == [0, 0, 1]


def test_distributions_export_json_and_csv_agree(make_project, tmp_path):
    project = make_project("stc3")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    data = json.loads(export_gold(project=project, fmt="distributions-json"))
    a_items = {i["dialogue"]: i for i in data["criteria"]["A"]["items"]}
    assert a_items["d1"]["counts"] == {"-2": 0, "-1": 0, "0": 0, "1": 1, "2": 1}
    assert a_items["d1"]["distribution"]["2"] == 0.5
    nugget = {(i["dialogue"], i["unit"]): i for i in data["criteria"]["nugget"]["items"]}
    # a helpdesk turn is scored over the helpdesk scale only
    assert nugget[("d1", 1)]["speaker"] == "helpdesk"
    assert nugget[("d1", 1)]["distribution"] == {"HNUG": 0.5, "HNUG*": 0.5, "HNaN": 0.0}
    assert data["criteria"]["nugget"]["scales"]["customer"] == ["CNUG0", "CNUG", "CNUG*", "CNaN"]
    rows = export_gold(project=project, fmt="distributions-csv").decode().splitlines()
    assert rows[0] == (
        "criterion,dialogue,unit,speaker,n,value,count,probability,adjudicated,adjudication_note,aggregation,annotators"
    )
    assert "nugget,d1,1,helpdesk,2,HNUG*,1,0.5,,,votes,1;2" in rows
    total_rows = sum(len(i["counts"]) for c in data["criteria"].values() for i in c["items"])
    assert len(rows) == 1 + total_rows


def test_second_import_appends_and_keeps_annotators(make_project, tmp_path):
    project = make_project("stc3")
    first, second = stc3_dialogues()
    dialogues_import(project=project, paths=[write_json(tmp_path / "a.json", [first])])
    report = dialogues_import(project=project, paths=[write_json(tmp_path / "b.json", [second])])
    assert report.annotators_created == 0
    assert list(Dialogue.objects.filter(project=project).values_list("external_id", flat=True)) == ["d1", "d2"]


def test_dbdc_export_is_reproducible_byte_for_byte(make_project, tmp_path, monkeypatch):
    import time

    project = make_project("dbdc")
    dialogues_import(project=project, paths=[write_json(tmp_path / "a.log.json", dbdc_dialogue("a"))])
    first = export_gold(project=project, fmt="dbdc")
    # an hour later by the clock zip timestamps are read from (they have a two-second resolution)
    now, local = time.time, time.localtime
    monkeypatch.setattr(time, "time", lambda: now() + 3600)
    monkeypatch.setattr(time, "localtime", lambda seconds=None: local(now() + 3600 if seconds is None else seconds))
    assert export_gold(project=project, fmt="dbdc") == first


@pytest.mark.postgres(reason="the planner's statistics (pg_class.reltuples); SQLite keeps none")
def test_an_import_refreshes_the_planner_statistics(make_project, tmp_path):
    from django.db import connection

    project = make_project("stc3")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [Judgement._meta.db_table])
        estimated = cursor.fetchone()[0]
    assert estimated == Judgement.objects.count() > 0


@pytest.mark.parametrize(("kept", "reads"), [(10_000, 1), (5, 2)])
def test_a_small_collection_is_parsed_once_a_larger_one_read_again_as_a_stream(
    make_project, tmp_path, monkeypatch, kept, reads
):
    """On SQLite a collection too large to hold is checked whole, then read again as it is written; on PostgreSQL
    the rest of it is checked as it is written (read once)."""
    from django.db import connection

    from annotator.services.imports import dialogues as module

    if connection.vendor == "postgresql":
        reads = 1

    monkeypatch.setattr(module, "KEPT_RECORDS", kept)
    calls, read_sources = [], module.read_sources

    def counted(*args, **kwargs):
        calls.append(args)
        return read_sources(*args, **kwargs)

    monkeypatch.setattr(module, "read_sources", counted)
    project = make_project("dbdc")
    for name in ("a", "b", "c"):
        write_json(tmp_path / f"{name}.log.json", dbdc_dialogue(name))
    report = dialogues_import(project=project, paths=[tmp_path], batch_size=2)
    assert len(calls) == reads
    assert (report.dialogues, report.judgements) == (3, 18)
    assert sorted(Dialogue.objects.values_list("external_id", flat=True)) == ["a", "b", "c"]
    assert Judgement.objects.count() == 18 and Post.objects.count() == report.posts > 0


@pytest.mark.parametrize("kept", [10_000, 5])
def test_a_refused_dialogue_late_in_a_streamed_collection_leaves_nothing_written(
    make_project, tmp_path, monkeypatch, kept
):
    """The last dialogue's label is off the scale: whether it was found before anything was written (held, or
    SQLite) or after two batches were written (PostgreSQL's stream), the error names it and nothing stays."""
    from django.contrib.auth import get_user_model

    from annotator.models import ImportBatch
    from annotator.services.imports import dialogues as module
    from scoring.errors import InputError

    monkeypatch.setattr(module, "KEPT_RECORDS", kept)
    project = make_project("dbdc")
    for name in ("a", "b", "c", "d", "e"):
        write_json(tmp_path / f"{name}.log.json", dbdc_dialogue(name, labels=("O", "T", "Q" if name == "e" else "X")))
    users = get_user_model().objects.count()
    with pytest.raises(InputError) as refused:
        dialogues_import(project=project, paths=[tmp_path], batch_size=2)
    assert str(refused.value).startswith(f"{tmp_path}/e.log.json: dialogue e: field turns[2].annotations[2].breakdown")
    assert not Dialogue.objects.filter(project=project).exists() and not Judgement.objects.exists()
    assert not ImportBatch.objects.filter(project=project).exists()
    assert get_user_model().objects.count() == users and not Membership.objects.filter(imported=True).exists()
