"""A team's own scheme end to end through the command line: a FED-like scheme file (Mehri & Eskenazi 2020: turn-
and dialogue-level qualities, answers "N/A" where a quality does not apply), today's chat transcripts and
existing ratings in long form; the agreement the platform reads equals the ``krippendorff`` package's on the
same ratings with the not-applicable answers left out."""

from __future__ import annotations

import io
import json
import random

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotator.exporters import export_gold
from annotator.models import Assignment, Judgement, Membership, Project
from evaluation.services.statistics import project_statistics
from tests.factories import user_make

pytestmark = pytest.mark.django_db

FED_LIKE = """\
scheme: 1
key: fed-like
label: {en: FED-like chatbot evaluation, ja: FED 風のチャットボット評価, zh: 类 FED 聊天机器人评测}
guidelines: Read the conversation, then rate the system's last response and the conversation as a whole.
annotators_per_dialogue: 5
speakers: [user, assistant]
criteria:
  - key: interesting
    label: Interesting
    question: Is the response interesting?
    unit: turn
    speaker: assistant
    applies_to: last
    level: ordinal
    values:
      - {value: "0", label: "0: no"}
      - {value: "1", label: "1: somewhat"}
      - {value: "2", label: "2: yes"}
  - key: understandable
    label: Understandable
    question: Is the response understandable in the context?
    unit: turn
    speaker: assistant
    applies_to: last
    level: nominal
    values:
      - {value: "yes", label: "Yes"}
      - {value: "no", label: "No"}
  - key: coherent
    label: Coherent
    question: Is the conversation coherent throughout?
    unit: dialogue
    level: interval
    values:
      - {value: "1", label: "1: not at all"}
      - {value: "2", label: "2"}
      - {value: "3", label: "3: completely"}
  - key: consistent
    label: Consistent
    question: Is the system consistent throughout the conversation?
    unit: dialogue
    level: nominal
    values:
      - {value: "yes", label: "Yes", key: y}
      - {value: "no", label: "No", key: n}
    not_applicable: {value: N/A, label: "Not applicable (the system says too little)", key: "0"}
"""
LEVELS = {"interesting": "ordinal", "understandable": "nominal", "coherent": "interval", "consistent": "nominal"}
SCALES = {
    "interesting": ["0", "1", "2"],
    "understandable": ["yes", "no"],
    "coherent": ["1", "2", "3"],
    "consistent": ["yes", "no"],
}
RATERS = [f"r{i}" for i in range(1, 8)]


def _transcripts(n: int) -> list[dict]:
    """Conversations in both forms, each with the system that took part; the last turn is the system's."""
    rng = random.Random(7)
    lines = []
    for i in range(n):
        turns = 2 * rng.randint(1, 3)
        texts = [f"{'question' if t % 2 == 0 else 'answer'} {t} of c{i}" for t in range(turns)]
        system = f"bot-{'ab'[i % 2]}"
        if i % 3 == 2:  # ShareGPT
            conversations = [{"from": "human" if t % 2 == 0 else "gpt", "value": x} for t, x in enumerate(texts)]
            lines.append({"id": f"c{i}", "system": system, "conversations": conversations})
        else:
            messages = [{"role": "system", "content": "You are a helpful assistant."}] + [
                {"role": "user" if t % 2 == 0 else "assistant", "content": x} for t, x in enumerate(texts)
            ]
            lines.append({"id": f"c{i}", "system": system, "messages": messages, "meta": {"source": "test"}})
    return lines


def _ratings(transcripts: list[dict]) -> list[dict]:
    """Five of the seven raters per conversation, each rating every quality (a few left out); the consistency
    of short conversations often "N/A". Units as the exports number them: 0 for the dialogue, else the turn."""
    rng = np.random.default_rng(11)
    rows = []
    for line in transcripts:
        turns = len(line.get("messages", line.get("conversations")))
        turns -= 1 if "messages" in line else 0  # the system prompt is no turn
        last = turns - 1
        for rater in rng.choice(RATERS, size=5, replace=False).tolist():
            bias = rng.integers(0, 2)
            for key in LEVELS:
                if rng.random() < 0.08:
                    continue  # this rater left the quality out
                scale = SCALES[key]
                value = scale[
                    min(len(scale) - 1, int(rng.integers(0, len(scale))) + int(bias) * (key != "understandable"))
                ]
                if key == "consistent" and turns <= 2 and rng.random() < 0.6:
                    value = "N/A"
                unit = 0 if key in ("coherent", "consistent") else last
                rows.append({"item": line["id"], "unit": unit, "annotator": rater, "criterion": key, "value": value})
    return rows


def _jsonl(path, rows) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _reliability_data(rows: list[dict], key: str) -> np.ndarray:
    """Raters x units for ``krippendorff.alpha``: the value's number (ordinal and nominal: its place on the
    scale; interval: the value), NaN where a rater gave none or answered "N/A"."""
    units = sorted({(r["item"], r["unit"]) for r in rows if r["criterion"] == key})
    data = np.full((len(RATERS), len(units)), np.nan)
    for r in rows:
        if r["criterion"] != key or r["value"] == "N/A":
            continue
        number = float(r["value"]) if LEVELS[key] == "interval" else SCALES[key].index(r["value"])
        data[RATERS.index(r["annotator"]), units.index((r["item"], r["unit"]))] = number
    return data


def test_a_fed_like_study_from_files_through_the_command_line(tmp_path):
    # given a FED-like scheme file, 24 transcripts in the OpenAI and ShareGPT forms, and ratings in long form
    import krippendorff

    scheme = tmp_path / "fed-like.yaml"
    scheme.write_text(FED_LIKE, encoding="utf-8")
    transcripts = _transcripts(24)
    ratings = _ratings(transcripts)
    assert sum(r["value"] == "N/A" for r in ratings) > 5
    user_make("fed-lead")
    out = io.StringIO()

    # when a lead creates the project, imports the transcripts and the ratings through the command line
    call_command("create_project", "fed", "--scheme", str(scheme), "--lead", "fed-lead", stdout=out)
    call_command("import_dialogues", "fed", _jsonl(tmp_path / "chats.jsonl", transcripts), stdout=out)
    call_command("import_annotations", "fed", _jsonl(tmp_path / "ratings.jsonl", ratings), stdout=out)

    # then the project follows the scheme, led by the lead, with the systems kept per dialogue
    project = Project.objects.get(slug="fed")
    assert project.preset == "custom" and project.annotators_per_dialogue == 5
    assert Membership.objects.get(project=project, user__username="fed-lead").role == "lead"
    assert list(project.criteria.values_list("key", flat=True)) == list(LEVELS)
    systems = dict(project.dialogues.values_list("external_id", "source_meta__system"))
    assert systems["c0"] == "bot-a" and systems["c2"] == "bot-a" and systems["c1"] == "bot-b"
    speakers = set(project.dialogues.get(external_id="c2").posts.values_list("speaker", flat=True))
    assert speakers == {"user", "assistant"}  # ShareGPT's human and gpt, the system prompt no turn
    # every rating is stored as given, "N/A" as an answer of its own
    assert Judgement.objects.filter(assignment__dialogue__project=project).count() == len(ratings)
    assert Judgement.objects.filter(assignment__dialogue__project=project, value="N/A").count() == sum(
        r["value"] == "N/A" for r in ratings
    )
    assert Assignment.objects.filter(dialogue__project=project, imported=True).count() == 5 * 24

    # and the agreement equals the krippendorff package's, with the not-applicable answers left out
    stats = project_statistics(project)
    for key, level in LEVELS.items():
        expected = krippendorff.alpha(
            reliability_data=_reliability_data(ratings, key),
            level_of_measurement=level,
            value_domain=None if level == "interval" else list(range(len(SCALES[key]))),
        )
        assert stats["criteria"][key]["krippendorff_alpha"][level] == pytest.approx(expected, abs=1e-9), key
    labelled = sum(r["criterion"] == "consistent" and r["value"] != "N/A" for r in ratings)
    assert stats["criteria"]["consistent"]["n_labels"] == labelled

    # and the gold distributions count no "N/A"
    gold = json.loads(export_gold(project=project, fmt="distributions-json"))
    consistent = gold["criteria"]["consistent"]["items"]
    assert sum(item["n"] for item in consistent) == labelled
    assert all(set(item["counts"]) == {"yes", "no"} for item in consistent)


def test_a_bad_rating_names_the_file_the_line_and_the_field_and_imports_nothing(tmp_path):
    scheme = tmp_path / "fed-like.yaml"
    scheme.write_text(FED_LIKE, encoding="utf-8")
    call_command("create_project", "fed2", "--scheme", str(scheme), stdout=io.StringIO())
    call_command("import_dialogues", "fed2", _jsonl(tmp_path / "c.jsonl", _transcripts(3)), stdout=io.StringIO())
    good = {"item": "c0", "unit": 0, "annotator": "r1", "criterion": "coherent", "value": "2"}
    cases = [
        ({**good, "value": "N/A"}, "field value", "'N/A' is not a value of coherent"),  # no N/A on this one
        ({**good, "item": "c9"}, "field item", "'c9' is no dialogue of this project"),
        ({**good, "criterion": "funny"}, "field criterion", "'funny' is no criterion"),
        ({**good, "criterion": "interesting", "unit": 0}, "field unit", "applies to assistant turns"),
        ({**good, "criterion": "interesting", "unit": 9}, "field unit", "no turn 9"),
        ({**good, "unit": -1}, "field unit", "is negative"),
        ({**good, "score": 1}, "field score", "is not a field of a rating"),
    ]
    for bad, field, message in cases:
        path = _jsonl(tmp_path / "r.jsonl", [good, bad])
        with pytest.raises(CommandError) as refused:
            call_command("import_annotations", "fed2", path)
        text = str(refused.value)
        assert text.startswith(f"{path}: dialogue line 2: {field}: ") and message in text, text
    assert not Judgement.objects.filter(assignment__dialogue__project__slug="fed2").exists()
    # a rating given twice, and one a rater already gave in an earlier import
    with pytest.raises(CommandError, match="rated this unit twice"):
        call_command("import_annotations", "fed2", _jsonl(tmp_path / "r.jsonl", [good, good]))
    call_command("import_annotations", "fed2", _jsonl(tmp_path / "r.jsonl", [good]), stdout=io.StringIO())
    with pytest.raises(CommandError, match="r1 already has answers on c0"):
        call_command(
            "import_annotations",
            "fed2",
            _jsonl(tmp_path / "r.jsonl", [{**good, "criterion": "consistent", "value": "N/A"}]),
        )
    assert Judgement.objects.filter(assignment__dialogue__project__slug="fed2").count() == 1
