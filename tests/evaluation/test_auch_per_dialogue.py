"""AUCH per dialogue of an imported project equals the paper's definition applied to the source file.

The service builds every (dialogue, annotator) label sequence as arrays and scores them together
(``scoring.uch.uch_of_sequences``); the reference here reads the STC-3 JSON itself and calls the
per-annotator ``auch`` of Zeng et al. (2017) dialogue by dialogue.
"""

import json

import pytest

from annotator.selectors.judgement_arrays import project_judgements
from annotator.services.imports import dialogues_import
from evaluation.services.uch_summary import auch_per_dialogue
from scoring.uch import auch
from tests.fixtures.collections import write_json

pytestmark = pytest.mark.django_db


def reference_auch(dialogues: list[dict]) -> dict[str, float]:
    """Turns as units (a turn's length: its utterances' characters), L the longest dialogue."""
    shapes = {
        d["id"]: ([t["sender"] for t in d["turns"]], [sum(len(u) for u in t["utterances"]) for t in d["turns"]])
        for d in dialogues
    }
    patience = max(sum(lengths) for _s, lengths in shapes.values())
    return {
        d["id"]: auch(*shapes[d["id"]][:1], [a["nugget"] for a in d["annotations"]], shapes[d["id"]][1], patience)
        for d in dialogues
    }


@pytest.mark.parametrize("language", ["en", "cn"])
def test_auch_per_dialogue_equals_the_definition_on_real_stc3(make_project, stc3_dir, tmp_path, language):
    dialogues = json.loads((stc3_dir / f"train_data_{language}.json").read_text(encoding="utf-8"))[:300]
    project = make_project("stc3")
    dialogues_import(project=project, paths=[write_json(tmp_path / "train.json", dialogues)])
    nugget = project_judgements(project)["nugget"]
    got = auch_per_dialogue(project, nugget)
    ids = dict(project.dialogues.values_list("pk", "external_id"))
    expected = reference_auch(dialogues)
    assert {ids[pk] for pk in got} == set(expected)
    assert {ids[pk]: v for pk, v in got.items()} == pytest.approx(expected, abs=1e-12)
    assert len({round(v, 9) for v in expected.values()}) > 100  # the values really differ between dialogues


def test_a_missing_label_counts_as_no_nugget(make_project, tmp_path):
    """An annotator who left a turn unlabelled (a draft reopened, a partial import) scores it as no nugget."""
    dialogues = [
        {
            "id": "d1",
            "turns": [
                {"sender": "customer", "utterances": ["abcd"]},
                {"sender": "helpdesk", "utterances": ["efgh"]},
                {"sender": "customer", "utterances": ["ij"]},
            ],
            "annotations": [{"quality": {"A": 1, "S": 0, "E": 1}, "nugget": ["CNUG0", "HNUG*", "CNUG*"]}],
        }
    ]
    project = make_project("stc3")
    dialogues_import(project=project, paths=[write_json(tmp_path / "d.json", dialogues)])
    nugget = project_judgements(project)["nugget"]
    full = auch_per_dialogue(project, nugget)
    keep = nugget.unit_index[nugget.unit] != 1  # drop the helpdesk turn's label
    partial = type(nugget)(
        **{
            **nugget.__dict__,
            "unit": nugget.unit[keep],
            "annotator": nugget.annotator[keep],
            "value": nugget.value[keep],
        }
    )
    (value,) = auch_per_dialogue(project, partial).values()
    assert value == pytest.approx(
        auch(["customer", "helpdesk", "customer"], [["CNUG0", "NaN", "CNUG*"]], [4, 4, 2], 10)
    )
    assert list(full.values()) != [value]
