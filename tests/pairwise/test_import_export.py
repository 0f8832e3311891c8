"""The pairwise preset's import and exports: round trips, preference pairs, refusals of hostile input."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from annotator.exporters import export_gold
from annotator.models import Candidate, Dialogue, Judgement
from annotator.services.imports import dialogues_import
from annotator.services.projects import project_create
from scoring.errors import InputError
from tests.pairwise.data import pairwise_items, read_lines, write_lines

pytestmark = pytest.mark.django_db


def test_import_then_export_gives_the_input_back(tmp_path):
    items = pairwise_items(12, votes=3, seed=1)
    items[0]["meta"] = {"source": "arena", "turn": 2}
    items[1]["language"] = "en"
    items[2]["annotations"][0]["comment"] = "both fine, A shorter"
    items[3]["annotations"].append({"annotator": "src9", "criterion": "overall", "winner": "both_bad"})
    del items[4]["annotations"]
    items[5]["id"] = 77  # a number stays a number
    project = project_create(slug="pw-round", preset="pairwise")
    report = dialogues_import(project=project, paths=[write_lines(tmp_path / "votes.jsonl", items)])
    assert report.dialogues == 12 and report.judgements == 3 * 11 + 1
    assert Candidate.objects.filter(dialogue__project=project).count() == 24
    assert read_lines(export_gold(project=project, fmt="pairwise")) == items


def test_winners_and_shown_order_are_stored_in_system_terms(tmp_path):
    item = pairwise_items(1)[0] | {
        "annotations": [
            {"annotator": "x", "winner": "bravo", "shown_first": "bravo"},
            {"annotator": "y", "winner": "alpha", "shown_first": "bravo"},
            {"annotator": "z", "winner": "tie"},
        ]
    }
    project = project_create(slug="pw-terms", preset="pairwise")
    dialogues_import(project=project, paths=[write_lines(tmp_path / "one.jsonl", [item])])
    systems = list(Candidate.objects.order_by("slot").values_list("system", flat=True))
    assert systems == ["alpha", "bravo"]
    rows = Judgement.objects.order_by("pk").values_list("value", "shown_first")
    assert list(rows) == [("b", "b"), ("a", "b"), ("tie", "")]


def test_preference_pairs_take_the_most_voted_system_and_leave_ties_out(tmp_path):
    base = pairwise_items(3)
    votes = [
        ["alpha", "alpha", "bravo"],  # alpha chosen, 2 to 1
        ["tie", "tie", "charlie"],  # a tie wins: left out
        ["delta", "alpha", "tie"],  # no single most-voted outcome: left out
    ]
    for item, winners in zip(base, votes):
        item["annotations"] = [{"annotator": f"s{k}", "winner": w} for k, w in enumerate(winners)]
    project = project_create(slug="pw-prefs", preset="pairwise")
    dialogues_import(project=project, paths=[write_lines(tmp_path / "p.jsonl", base)])
    pairs = read_lines(export_gold(project=project, fmt="preference-pairs"))
    assert pairs == [
        {
            "id": "c1",
            "context": base[0]["context"],
            "chosen": base[0]["candidates"][0]["text"],
            "rejected": base[0]["candidates"][1]["text"],
            "chosen_system": "alpha",
            "rejected_system": "bravo",
            "votes": {"alpha": 2, "bravo": 1, "tie": 0, "both_bad": 0},
        }
    ]


def test_export_command_writes_both_formats(tmp_path):
    project = project_create(slug="pw-cli", preset="pairwise")
    dialogues_import(project=project, paths=[write_lines(tmp_path / "c.jsonl", pairwise_items(4, votes=3))])
    for fmt in ("pairwise", "preference-pairs"):
        out = tmp_path / f"{fmt}.jsonl"
        call_command("export_gold", "pw-cli", "--format", fmt, "--output", str(out))
        assert out.read_bytes() == export_gold(project=project, fmt=fmt)
    with pytest.raises(ValueError, match="cannot be exported as pairwise"):
        export_gold(project=project_create(slug="pw-not", preset="dch1"), fmt="pairwise")


def hostile(item: dict, **change) -> dict:
    return json.loads(json.dumps(item)) | change


BASE = pairwise_items(1, votes=2)[0]
REFUSALS = [
    (hostile(BASE, candidates=BASE["candidates"][:1]), "candidates", "has 1 candidates; a comparison has exactly two"),
    (hostile(BASE, candidates=BASE["candidates"] * 2), "candidates", "has 4 candidates"),
    (
        hostile(BASE, candidates=[BASE["candidates"][0], BASE["candidates"][0]]),
        "candidates[1].system",
        "both candidates are by system 'alpha'",
    ),
    (
        hostile(BASE, candidates=[{"system": "tie", "text": "x"}, BASE["candidates"][1]]),
        "candidates[0].system",
        "cannot name a system",
    ),
    (hostile(BASE, candidates=[{"system": " ", "text": "x"}, BASE["candidates"][1]]), "candidates[0].system", "empty"),
    (
        hostile(BASE, annotations=[{"annotator": "a", "winner": "zulu"}]),
        "annotations[0].winner",
        "'zulu' is neither a candidate's system ('alpha', 'bravo') nor tie or both_bad",
    ),
    (
        hostile(BASE, annotations=[{"annotator": "a", "winner": "alpha", "shown_first": "tie"}]),
        "annotations[0].shown_first",
        "is not a candidate's system",
    ),
    (hostile(BASE, annotations=[{"annotator": "a", "winner": 1}]), "annotations[0].winner", "expected str, got int"),
    (hostile(BASE, context=[]), "context", "has no turns"),
    (
        hostile(BASE, annotations=[{"annotator": "a", "winner": "alpha", "criterion": "charm"}]),
        "annotations[0].winner",
        "criterion 'charm' is not in project",
    ),
    (
        hostile(BASE, annotations=[{"annotator": "a", "winner": "alpha"}, {"annotator": "a", "winner": "tie"}]),
        "annotations[1].winner",
        "annotator a judged this unit twice",
    ),
]


@pytest.mark.parametrize(("record", "field", "message"), REFUSALS, ids=[r[1] + ":" + r[2][:20] for r in REFUSALS])
def test_hostile_lines_are_refused_naming_file_line_and_field_and_nothing_is_written(tmp_path, record, field, message):
    project = project_create(slug="pw-bad", preset="pairwise")
    path = write_lines(tmp_path / "bad.jsonl", [pairwise_items(1, prefix="ok")[0], record])
    with pytest.raises(InputError) as caught:
        dialogues_import(project=project, paths=[path])
    error = caught.value
    assert error.file.endswith("bad.jsonl") and error.field == field and message in error.message
    assert "c1" in str(error.record)
    if "line" in str(error.record):
        assert "line 2" in error.record
    assert not Dialogue.objects.filter(project=project).exists()


def test_a_plain_dialogue_file_is_refused_by_a_comparison_project_and_a_comparison_by_others(tmp_path):
    comparisons = write_lines(tmp_path / "cmp.jsonl", pairwise_items(2))
    plain = write_lines(tmp_path / "plain.jsonl", [{"id": "d1", "turns": [{"speaker": "u", "text": "hi"}]}])
    with pytest.raises(InputError, match="has no candidates"):
        dialogues_import(project=project_create(slug="pw-plain", preset="pairwise"), paths=[plain])
    with pytest.raises(InputError, match="is a comparison of two responses"):
        dialogues_import(project=project_create(slug="pw-coh", preset="coherence"), paths=[comparisons])
