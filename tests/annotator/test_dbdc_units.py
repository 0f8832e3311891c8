"""Which turns a breakdown project asks about: the DBDC3 protocol, from one rule (``UnitRule``).

Imported logs with labels: the system turns the source annotated. New collections (JSON lines,
logs without labels): every system turn after the first user turn. The annotation page, saves,
import validation, gold data, the DBDC export and run scoring all follow it.
"""

from __future__ import annotations

import importlib
import io
import json
import zipfile

import pytest
from django.apps import apps

from annotator.exporters import export_gold
from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, Criterion, Judgement, Post
from annotator.presets import PRESETS, UnitRule
from annotator.selectors.annotation import annotation_page
from annotator.selectors.judgement_arrays import project_judgements
from annotator.selectors.structure import dialogue_shape
from annotator.services.imports import dialogues_import
from annotator.services.judgements import Given, SubmissionError, judgements_save
from annotator.services.projects import membership_add
from annotator.units import UnitError, required_units, unit_speaker
from evaluation.runs.services.scoring import run_score
from scoring.errors import InputError
from tests.fixtures.collections import dbdc_dialogue, write_json
from tests.fixtures.dbdc_runs import annotated, file_pairs, log_files, write_run
from tests.reference_dbdc3_eval import OURS, evaluate

pytestmark = pytest.mark.django_db


def breakdown(project) -> Criterion:
    return Criterion.objects.get(project=project, key="breakdown")


def asked(project, external_id: str) -> list[int]:
    dialogue = project.dialogues.get(external_id=external_id)
    return required_units(breakdown(project), dialogue_shape(dialogue.pk))


def stripped(record: dict) -> dict:
    return {**record, "turns": [{**t, "annotations": []} for t in record["turns"]]}


def test_the_rule_is_the_dbdc_preset_s_breakdown_criterion_s(make_project):
    assert PRESETS["dbdc"].criterion("breakdown").applies_to == UnitRule.RESPONSES
    assert {c.applies_to for k, p in PRESETS.items() if k != "dbdc" for c in p.criteria} == {UnitRule.EVERY}
    assert breakdown(make_project("dbdc")).applies_to == UnitRule.RESPONSES


def test_imported_logs_ask_about_the_turns_their_source_annotated(make_project, tmp_path):
    project = make_project("dbdc")
    record = dbdc_dialogue("a")  # S (no labels), U, S (labels), U, S (labels)
    dialogues_import(project=project, paths=[write_json(tmp_path / "a.log.json", record)])
    flags = list(Post.objects.filter(dialogue__external_id="a").order_by("position").values_list("source_annotated"))
    assert [f for (f,) in flags] == [False, False, True, False, True]
    assert asked(project, "a") == [2, 4]
    shape = dialogue_shape(project.dialogues.get().pk)
    with pytest.raises(UnitError, match="breakdown is not asked of post 0: the source collection did not annotate it"):
        unit_speaker(breakdown(project), 0, shape)
    # a log whose system turn 4 is left unannotated: turn 4 is not a unit either
    other = dbdc_dialogue("b")
    other["turns"][4]["annotations"] = []
    dialogues_import(project=project, paths=[write_json(tmp_path / "b.log.json", other)])
    assert asked(project, "b") == [2]


def test_new_collections_ask_about_system_turns_after_a_user_turn(make_project, tmp_path):
    project = make_project("dbdc")
    lines = tmp_path / "new.jsonl"
    dialogues = {
        "prompt-first": "SSUSUS",  # two opening system posts, then responses at 3 and 5
        "user-first": "USUS",
    }
    lines.write_text(
        "".join(
            json.dumps({"id": i, "turns": [{"speaker": s, "text": f"t{k}"} for k, s in enumerate(speakers)]}) + "\n"
            for i, speakers in dialogues.items()
        )
    )
    dialogues_import(project=project, paths=[lines])
    # a DBDC log without any labels is a new collection too
    dialogues_import(project=project, paths=[write_json(tmp_path / "c.log.json", stripped(dbdc_dialogue("c")))])
    assert asked(project, "prompt-first") == [3, 5]
    assert asked(project, "user-first") == [1, 3]
    assert asked(project, "c") == [2, 4]
    assert set(Post.objects.filter(dialogue__external_id="c").values_list("source_annotated", flat=True)) == {None}
    shape = dialogue_shape(project.dialogues.get(external_id="prompt-first").pk)
    with pytest.raises(UnitError, match="not asked of post 1: no turn by another speaker comes before it"):
        unit_speaker(breakdown(project), 1, shape)


def test_the_page_and_saves_follow_the_rule(make_project, make_user, tmp_path):
    project = make_project("dbdc", annotators_per_dialogue=1)
    dialogues_import(project=project, paths=[write_json(tmp_path / "c.log.json", stripped(dbdc_dialogue("c")))])
    user = make_user("ann")
    membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project)
    item = Assignment.objects.get(annotator=user)
    page = annotation_page(item)
    questions = {q.unit for b in page.blocks for p in b.posts for q in p.questions}
    assert questions == {2, 4}
    # the opening prompt is shown from the start, the first question with it
    assert [p.reveal for b in page.blocks for p in b.posts] == [0, 0, 0, 1, 1]
    with pytest.raises(SubmissionError, match="breakdown is not asked of post 0"):
        judgements_save(assignment_id=item.pk, user=user, values=[Given("breakdown", 0, "O")])
    with pytest.raises(SubmissionError, match=r"Dialogue breakdown is missing for turn 5 \(S\)"):
        judgements_save(assignment_id=item.pk, user=user, values=[Given("breakdown", 2, "O")], submit=True)
    values = [Given("breakdown", 2, "X"), Given("breakdown", 4, "T")]
    judgements_save(assignment_id=item.pk, user=user, values=values, submit=True)
    assert set(Judgement.objects.values_list("unit", "value")) == {(2, "X"), (4, "T")}


def test_labels_left_on_other_turns_stay_out_of_gold_export_and_runs(make_project, make_user, tmp_path):
    # given an imported log and a label on its opening prompt, stored before the rule applied
    project = make_project("dbdc")
    source = dbdc_dialogue("a")
    dialogues_import(project=project, paths=[write_json(tmp_path / "a.log.json", source)])
    imported = Assignment.objects.filter(dialogue__project=project).first()
    Judgement.objects.create(assignment=imported, criterion=breakdown(project), unit=0, value="X")
    # then the gold data has the source's units only
    data = project_judgements(project)["breakdown"]
    assert data.unit_index.tolist() == [2, 4] and data.counts().sum() == 6
    # the export reproduces the source
    exported = zipfile.ZipFile(io.BytesIO(export_gold(project=project, fmt="dbdc")))
    assert json.loads(exported.read("a.log.json")) == source
    # and a standard run (the annotated turns) scores
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    labels = {"breakdown": "O", "prob-O": 1.0, "prob-T": 0.0, "prob-X": 0.0}
    write_json(
        run_dir / "a.labels.json",
        {"dialogue-id": "a", "turns": [{"turn-index": t, "labels": [labels]} for t in (2, 4)]},
    )
    assert run_score(project=project, path=run_dir).scores["n_turns"] == 2


def test_the_import_refuses_labels_on_user_turns_whatever_the_rule(make_project, tmp_path):
    project = make_project("dbdc")
    record = dbdc_dialogue("u")
    record["turns"][1]["annotations"] = [{"annotator-id": "a1", "breakdown": "O"}]
    with pytest.raises(InputError, match="criterion breakdown applies to S turns, this one is by U"):
        dialogues_import(project=project, paths=[write_json(tmp_path / "u.log.json", record)])
    assert not project.dialogues.exists()


def test_the_migration_marks_the_turns_earlier_imports_annotated(make_project, tmp_path):
    project = make_project("dbdc")
    dialogues_import(
        project=project,
        paths=[
            write_json(tmp_path / "a.log.json", dbdc_dialogue("a")),
            write_json(tmp_path / "c.log.json", stripped(dbdc_dialogue("c"))),
        ],
    )
    Post.objects.update(source_annotated=None)  # as before the field existed
    migration = importlib.import_module("annotator.migrations.0004_post_source_annotated")
    migration.mark_source_annotated(apps, None)
    flags = dict(
        Post.objects.filter(dialogue__external_id="a").order_by("position").values_list("position", "source_annotated")
    )
    assert flags == {0: False, 1: False, 2: True, 3: False, 4: True}
    assert set(Post.objects.filter(dialogue__external_id="c").values_list("source_annotated", flat=True)) == {None}


@pytest.mark.shared_data
def test_an_in_house_project_from_the_stripped_dbdc3_logs_asks_what_dbdc3_annotated(
    dbdc_dir, make_project, make_user, tmp_path
):
    # given the DBDC3 English eval logs without their labels, imported as a new collection
    logs = log_files(dbdc_dir / "eval")
    sources = {json.loads(p.read_text(encoding="utf-8"))["dialogue-id"]: p for p in logs}
    folder = tmp_path / "stripped"
    folder.mkdir()
    for did, path in sources.items():
        write_json(folder / f"{did}.log.json", stripped(json.loads(path.read_text(encoding="utf-8"))))
    project = make_project("dbdc", annotators_per_dialogue=3)
    dialogues_import(project=project, paths=[folder])
    criterion = breakdown(project)
    # then every dialogue asks about exactly the turns DBDC3 annotated (2,000 of them)
    total = 0
    for dialogue in project.dialogues.all():
        record = json.loads(sources[dialogue.external_id].read_text(encoding="utf-8"))
        index_of = dict(Post.objects.filter(dialogue=dialogue).values_list("position", "source_turn_index"))
        units = required_units(criterion, dialogue_shape(dialogue.pk))
        assert [index_of[u] for u in units] == [t["turn-index"] for t in record["turns"] if annotated(t)]
        total += len(units)
    assert total == 2000
    # when three annotators judge a few dialogues (through the save path, with the source's first labels)
    people = [make_user(f"ann{i}") for i in range(3)]
    for person in people:
        membership_add(project=project, user=person, role="annotator")
    assignments_create_balanced(project=project)
    judged = sorted(sources)[:8]
    for i, person in enumerate(people):
        for item in Assignment.objects.filter(annotator=person, dialogue__external_id__in=judged):
            record = json.loads(sources[item.dialogue.external_id].read_text(encoding="utf-8"))
            position = {t["turn-index"]: p for p, t in enumerate(record["turns"])}
            values = [
                Given("breakdown", position[t["turn-index"]], t["annotations"][i]["breakdown"])
                for t in record["turns"]
                if annotated(t)
            ]
            judgements_save(assignment_id=item.pk, user=person, values=values, submit=True)
    # then a run in the DBDC3 format (labelling the opening prompts too) scores on the judged dialogues
    run_dir = write_run(
        [sources[d] for d in sorted(sources)], tmp_path / "run", "random", seed=2, every_system_turn=True
    )
    run = run_score(project=project, path=run_dir, name="random")
    # as the official script scores it on the project's own gold export
    exported = zipfile.ZipFile(io.BytesIO(export_gold(project=project, fmt="dbdc")))
    gold_dir = tmp_path / "gold"
    gold_dir.mkdir()
    for did in judged:
        (gold_dir / f"{did}.log.json").write_bytes(exported.read(f"{did}.log.json"))
    exact = write_run([sources[d] for d in judged], tmp_path / "exact", "random", seed=2)
    reference = evaluate(log_files(gold_dir), exact)
    assert (
        run.scores["n_turns"]
        == reference["System Utterance Num"]
        == sum(annotated(t) for d in judged for t in json.loads(sources[d].read_text(encoding="utf-8"))["turns"])
    )
    assert run.scores["n_dialogues"] == len(judged)
    for theirs, ours in OURS.items():
        assert run.scores["breakdown"][ours] == pytest.approx(reference[theirs], abs=1e-9), ours
    notes = " ".join(run.scores["notes"])
    assert "ignored 192 dialogues that have no gold labels yet" in notes and "turns the gold does not annotate" in notes
    assert len(file_pairs(run_dir)) == 200
