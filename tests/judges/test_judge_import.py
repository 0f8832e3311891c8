"""Importing a judge: each preset's own format with one annotator, JSON lines of labels with distributions,
a run registered as a judge; errors name file, record and field and write nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotator.judges.selectors import judge_label_arrays
from annotator.judges.services.labels import judge_import, judge_remove
from annotator.models import Judge, JudgeKind, JudgeLabel
from annotator.services.imports import dialogues_import
from evaluation.judges.services.from_runs import judge_from_run
from evaluation.runs.services.scoring import run_score
from scoring.errors import InputError
from tests.fixtures.collections import dbdc_dialogue, stc3_dialogues, write_json
from tests.fixtures.dbdc_runs import file_pairs, write_run
from tests.reference_scoring import random_stc3_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def stc3_project(make_project, tmp_path):
    project = make_project("stc3")
    dialogues_import(project=project, paths=[write_json(tmp_path / "humans.json", stc3_dialogues())])
    return project


@pytest.fixture
def dbdc_project(make_project, tmp_path):
    project = make_project("dbdc")
    dialogues_import(
        project=project,
        paths=[
            write_json(tmp_path / "a.log.json", dbdc_dialogue("a")),
            write_json(tmp_path / "b.log.json", dbdc_dialogue("b", ("X", "X", "T"))),
        ],
    )
    return project


def one_annotator(dialogues: list[dict]) -> list[dict]:
    """The collection with only its first annotation per dialogue: a judge's file in the STC-3 format."""
    return [{**d, "annotations": d["annotations"][:1]} for d in dialogues]


def test_a_judge_in_the_stc3_format_labels_every_unit_it_annotates(stc3_project, tmp_path):
    source = one_annotator(stc3_dialogues())
    judge = judge_import(project=stc3_project, path=write_json(tmp_path / "llm.json", source), name="llm")
    assert judge.kind == JudgeKind.IMPORTED and judge.source == {"files": ["llm.json"], "format": "stc3"}
    arrays = judge_label_arrays(judge)
    for key in "ASE":
        expected = {d["id"]: str(d["annotations"][0]["quality"][key]) for d in source}
        assert dict(zip(arrays[key].item.tolist(), arrays[key].value.tolist())) == expected
        assert arrays[key].unit.tolist() == [0] * len(source)
    nuggets = {(d["id"], t): label for d in source for t, label in enumerate(d["annotations"][0]["nugget"])}
    got = arrays["nugget"]
    assert dict(zip(zip(got.item.tolist(), got.unit.tolist()), got.value.tolist())) == nuggets
    assert got.distribution is None


def test_an_unknown_dialogue_is_named_and_nothing_is_written(stc3_project, tmp_path):
    source = one_annotator(stc3_dialogues())
    source[1]["id"] = "not-in-project"
    with pytest.raises(InputError) as caught:
        judge_import(project=stc3_project, path=write_json(tmp_path / "llm.json", source), name="llm")
    assert caught.value.file.endswith("llm.json")
    assert (caught.value.record, caught.value.field) == ("not-in-project", "id")
    assert "import the dialogues" in caught.value.message
    assert not Judge.objects.exists() and not JudgeLabel.objects.exists()


def test_a_file_of_two_annotators_is_not_a_judge(stc3_project, tmp_path):
    path = write_json(tmp_path / "two.json", stc3_dialogues())
    with pytest.raises(InputError) as caught:
        judge_import(project=stc3_project, path=path, name="llm")
    assert caught.value.record == stc3_dialogues()[0]["id"] and caught.value.field.startswith("annotations[1]")
    assert not Judge.objects.exists()


def test_a_value_off_the_scale_is_refused_with_its_field(stc3_project, tmp_path):
    source = one_annotator(stc3_dialogues())
    source[1]["annotations"][0]["quality"]["A"] = 7
    with pytest.raises(InputError) as caught:
        judge_import(project=stc3_project, path=write_json(tmp_path / "llm.json", source), name="llm")
    assert (caught.value.record, caught.value.field) == (source[1]["id"], "annotations[0].quality.A")
    assert not Judge.objects.exists()


def test_a_name_is_unique_in_the_project(stc3_project, tmp_path):
    path = write_json(tmp_path / "llm.json", one_annotator(stc3_dialogues()))
    judge_import(project=stc3_project, path=path, name="llm")
    with pytest.raises(InputError, match="already has a judge named"):
        judge_import(project=stc3_project, path=path, name="llm")
    judge_remove(judge=Judge.objects.get())
    assert not JudgeLabel.objects.exists()
    judge_import(project=stc3_project, path=path, name="llm")


def test_dbdc_logs_with_probabilities_keep_the_distribution(dbdc_project, tmp_path):
    folder = tmp_path / "judge"
    folder.mkdir()
    for log in (dbdc_dialogue("a"), dbdc_dialogue("b")):
        for turn in log["turns"]:
            if turn["annotations"]:
                turn["annotations"] = [
                    {"annotator-id": "gpt", "breakdown": "T", "prob-O": 0.2, "prob-T": 0.5, "prob-X": 0.3}
                ]
        write_json(folder / f"{log['dialogue-id']}.log.json", log)
    judge = judge_import(project=dbdc_project, path=folder, name="gpt")
    labels = judge_label_arrays(judge)["breakdown"]
    assert labels.item.tolist() == ["a", "a", "b", "b"] and labels.unit.tolist() == [2, 4, 2, 4]
    assert labels.values == ["O", "T", "X"] and set(labels.value.tolist()) == {"T"}
    np.testing.assert_allclose(labels.distribution, [[0.2, 0.5, 0.3]] * 4)


def test_pairwise_votes_name_systems_and_distributions_too(make_project, tmp_path):
    project = make_project("pairwise")
    item = {
        "id": "p1",
        "context": [{"speaker": "user", "text": "hi"}],
        "candidates": [{"system": "small", "text": "yo"}, {"system": "large", "text": "Hello!"}],
    }
    (tmp_path / "items.jsonl").write_text(json.dumps(item) + "\n")
    dialogues_import(project=project, paths=[tmp_path / "items.jsonl"])
    vote = {"annotator": "judge", "winner": "large", "distribution": {"large": 0.7, "small": 0.1, "tie": 0.2}}
    (tmp_path / "judge.jsonl").write_text(json.dumps({**item, "annotations": [vote]}) + "\n")
    judge = judge_import(project=project, path=tmp_path / "judge.jsonl", name="judge")
    labels = judge_label_arrays(judge)["overall"]
    assert labels.value.tolist() == ["b"]
    assert dict(zip(labels.values, labels.distribution[0].tolist())) == {
        "a": 0.1,
        "b": 0.7,
        "tie": 0.2,
        "both_bad": 0.0,
    }


def labels_file(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_json_lines_of_labels_take_the_most_probable_value_when_none_is_given(stc3_project, tmp_path):
    path = labels_file(
        tmp_path / "judge.jsonl",
        [
            {"id": "d1", "labels": [{"criterion": "A", "distribution": {"-1": 0.25, "1": 0.75}}]},
            {
                "id": "d2",
                "labels": [{"criterion": "A", "value": "0"}, {"criterion": "nugget", "unit": 1, "value": "HNUG"}],
            },
        ],
    )
    judge = judge_import(project=stc3_project, path=path, name="lines")
    assert judge.source["format"] == "labels"
    a = judge_label_arrays(judge)["A"]
    assert a.item.tolist() == ["d1", "d2"] and a.value.tolist() == ["1", "0"]
    np.testing.assert_allclose(a.distribution[0], [0, 0.25, 0, 0.75, 0])
    assert np.isnan(a.distribution[1]).all()
    assert judge_label_arrays(judge)["nugget"].value.tolist() == ["HNUG"]


@pytest.mark.parametrize(
    ("label", "field", "words"),
    [
        ({"criterion": "A", "distribution": {"-1": 0.5, "1": 0.4}}, "labels[0].distribution", "sum to 0.9"),
        ({"criterion": "A", "distribution": {"9": 1.0}}, "labels[0].distribution", "not a value"),
        ({"criterion": "Q", "value": "1"}, "labels[0]", "unknown criterion"),
        ({"criterion": "nugget", "unit": 9, "value": "HNUG"}, "labels[0]", "no turn 9"),
        ({"criterion": "A"}, "labels[0]", "neither a value nor a distribution"),
    ],
)
def test_a_bad_label_is_named(stc3_project, tmp_path, label, field, words):
    path = labels_file(
        tmp_path / "judge.jsonl",
        [{"id": "d1", "labels": [{"criterion": "A", "value": "1"}]}, {"id": "d2", "labels": [label]}],
    )
    with pytest.raises(InputError) as caught:
        judge_import(project=stc3_project, path=path, name="lines")
    assert (caught.value.record, caught.value.field) == ("d2", field) and words in caught.value.message
    assert not Judge.objects.exists()


def test_an_stc3_run_registered_as_a_judge_keeps_its_distributions(stc3_project, tmp_path):
    run_data = random_stc3_run(stc3_dialogues(), seed=3)
    run = run_score(project=stc3_project, path=write_json(tmp_path / "run.json", run_data), name="sys1")
    judge = judge_from_run(run=run, name="sys1 as judge")
    assert judge.kind == JudgeKind.RUN and judge.source["run"] == run.pk
    arrays = judge_label_arrays(judge)
    for record in run_data:
        for key in "ASE":
            at = arrays[key].item.tolist().index(record["id"])
            given = record["quality"][key]
            assert dict(zip(arrays[key].values, arrays[key].distribution[at])) == pytest.approx(given)
            assert arrays[key].value[at] == max(given, key=given.get)
        nugget = arrays["nugget"]
        for t, given in enumerate(record["nugget"]):
            at = next(i for i, (d, u) in enumerate(zip(nugget.item, nugget.unit)) if (d, u) == (record["id"], t))
            row = dict(zip(nugget.values, nugget.distribution[at]))
            assert {v: row[v] for v in given} == pytest.approx(given)
            assert nugget.value[at] == max(given, key=given.get)


def test_a_dbdc_run_registered_as_a_judge_labels_the_asked_turns(dbdc_project, tmp_path):
    logs = [write_json(tmp_path / f"{d}.log.json", dbdc_dialogue(d)) for d in ("a", "b")]
    folder = write_run(logs, tmp_path / "run", "random", seed=2, every_system_turn=True)
    run = run_score(project=dbdc_project, files=file_pairs(folder), name="random")
    judge = judge_from_run(run=run, name="random")
    labels = judge_label_arrays(judge)["breakdown"]
    assert list(zip(labels.item, labels.unit)) == [("a", 2), ("a", 4), ("b", 2), ("b", 4)]
    for (d, unit), value, p in zip(zip(labels.item, labels.unit), labels.value, labels.distribution):
        given = json.loads((folder / f"{d}.labels.json").read_text())["turns"]
        entry = next(t["labels"][0] for t in given if t["turn-index"] == unit)
        assert p.tolist() == pytest.approx([entry["prob-O"], entry["prob-T"], entry["prob-X"]])
        assert value == "OTX"[int(np.argmax(p))]


def test_import_judge_command(stc3_project, tmp_path, capsys):
    path = write_json(tmp_path / "llm.json", one_annotator(stc3_dialogues()))
    call_command("import_judge", stc3_project.slug, str(path), "--judge", "llm")
    assert "judge llm:" in capsys.readouterr().out
    assert Judge.objects.get().labels.count() == JudgeLabel.objects.count() > 0
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_judge", stc3_project.slug, str(path), "--judge", "llm")
    call_command("remove_judge", stc3_project.slug, "llm")
    assert not Judge.objects.exists()
