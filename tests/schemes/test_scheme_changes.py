"""Scheme files refused with the field that is wrong, and changes to a scheme that never reinterpret stored answers."""

from __future__ import annotations

import io

import pytest
import yaml
from django.core.management import CommandError, call_command

from annotator.models import Criterion, Project
from annotator.presets.document import scheme_document, scheme_from_document, scheme_read, scheme_yaml
from annotator.services.judgements import Given, judgements_save
from annotator.services.schemes import SchemeChangeRefused, scheme_change, scheme_export
from scoring.errors import InputError
from tests.factories import project_with_work

pytestmark = pytest.mark.django_db

SMALL = {
    "scheme": 1,
    "key": "small",
    "label": "Small",
    "criteria": [
        {
            "key": "polite",
            "label": "Polite",
            "unit": "dialogue",
            "level": "nominal",
            "values": [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}],
        },
        {
            "key": "fluent",
            "label": "Fluent",
            "unit": "post",
            "level": "ordinal",
            "values": [{"value": "1", "label": "1"}, {"value": "2", "label": "2"}, {"value": "3", "label": "3"}],
        },
    ],
}


def _with(change) -> dict:
    document = yaml.safe_load(yaml.safe_dump(SMALL))
    change(document)
    return document


BAD = [
    (lambda d: d.pop("criteria"), None, "'criteria' is a required property"),
    (lambda d: d["criteria"][1].update(unit="sentence"), "criteria[1].unit", "'sentence' is not one of"),
    (
        lambda d: d["criteria"][1].update(level="interval", values=[{"value": "a", "label": "A"}] * 2),
        "criteria[1].values[1].value",
        "twice",
    ),
    (
        lambda d: d["criteria"][1].update(
            level="interval", values=[{"value": "a", "label": "A"}, {"value": "b", "label": "B"}]
        ),
        "criteria[1].values[0].value",
        "is not a number",
    ),
    (
        lambda d: d["criteria"][1].update(
            level="ratio", values=[{"value": "-1", "label": "A"}, {"value": "1", "label": "B"}]
        ),
        "criteria[1].values[0].value",
        "at least 0",
    ),
    (
        lambda d: d["criteria"][0].update(not_applicable={"value": "no", "label": "N/A"}),
        "criteria[0].not_applicable.value",
        "needs a value of its own",
    ),
    (lambda d: d["criteria"][0]["values"][0].update(key="j"), "criteria[0].values[0].key", "does not match"),
    (
        lambda d: d["criteria"][0].update(
            not_applicable={"value": "n/a", "label": "N/A", "key": "1"},
            values=[{"value": "yes", "label": "Yes", "key": "1"}, {"value": "no", "label": "No"}],
        ),
        "criteria[0].not_applicable.key",
        "chooses two answers",
    ),
    (lambda d: d["criteria"].append(dict(d["criteria"][0])), "criteria[2].key", "defined twice"),
    (lambda d: d["criteria"][0].update(speaker="bot"), "criteria[0].unit", "has no speaker"),
    (
        lambda d: d.update(speakers=["user", "bot"]) or d["criteria"][1].update(speaker="system"),
        "criteria[1].speaker",
        "not one of the scheme's speakers",
    ),
    (lambda d: d.update(incremental="polite"), "incremental", "no turn-level criterion"),
    (lambda d: d.update(runs="dbdc"), "runs", "breakdown"),
    (lambda d: d.update(comparison=True), "criteria[0]", "a comparison's criteria"),
    (
        lambda d: d["criteria"][1].update(merges={"low,high": [["1"], ["3"]]}),
        "criteria[1].merges.low,high",
        "every value",
    ),
    (lambda d: d.update(label={"ja": "小"}), "label", "is not valid under any of the given schemas"),
]


@pytest.mark.parametrize(("change", "field", "message"), BAD)
def test_a_bad_scheme_names_the_field(change, field, message):
    with pytest.raises(InputError) as refused:
        scheme_from_document(_with(change), display="small.yaml")
    assert refused.value.file == "small.yaml" and refused.value.field == field and message in refused.value.message


def test_a_scheme_round_trips_and_a_bad_file_creates_nothing(tmp_path):
    scheme = scheme_read(scheme_yaml(SMALL), "small.yaml")
    assert scheme_document(scheme) == {**SMALL, "annotators_per_dialogue": 3}
    assert scheme_read(scheme_yaml(scheme_document(scheme)), "again.yaml") == scheme
    path = tmp_path / "bad.yaml"
    path.write_text("scheme: 1\nkey: x\nlabel: [", encoding="utf-8")
    with pytest.raises(CommandError, match=r"bad.yaml: is neither YAML nor JSON"):
        call_command("create_project", "bad", "--scheme", str(path))
    path.write_text(scheme_yaml(_with(lambda d: d["criteria"][1].update(unit="sentence"))), encoding="utf-8")
    with pytest.raises(CommandError, match=r"bad.yaml: field criteria\[1\].unit: 'sentence' is not one of"):
        call_command("create_project", "bad", "--scheme", str(path))
    assert not Project.objects.filter(slug="bad").exists()


def _answered_project():
    from annotator.presets.document import scheme_from_document

    work = project_with_work("coherence", slug="small", annotators=1, scheme=scheme_from_document(SMALL))
    item = work.assignments_of(work.annotators[0])[0]
    judgements_save(assignment_id=item.pk, user=work.annotators[0], values=[Given("polite", 0, "yes")])
    return work.project


def test_changes_that_reinterpret_answers_are_refused_and_wording_is_not(tmp_path):
    # given a project of the small scheme where one annotator answered "polite" (a draft)
    project = _answered_project()
    fluent_answers = Criterion.objects.get(project=project, key="fluent")

    # a new scale, level or unit of the answered criterion, or its removal, is refused and changes nothing
    for change, field in [
        (lambda d: d["criteria"][0]["values"].append({"value": "maybe", "label": "Maybe"}), "values"),
        (lambda d: d["criteria"][0]["values"].reverse(), "values"),
        (lambda d: d["criteria"][0].update(level="ordinal"), "level"),
        (lambda d: d["criteria"][0].update(unit="turn"), "unit"),
        (lambda d: d["criteria"].pop(0), "cannot be removed"),
    ]:
        with pytest.raises(SchemeChangeRefused, match=f"criterion polite has answers: .*{field}"):
            scheme_change(project=project, scheme=scheme_from_document(_with(change)))
    project.refresh_from_db()
    assert project.scheme_version == 1 and scheme_export(project=project)["criteria"] == SMALL["criteria"]

    # a criterion without answers may change; wording, order, a new criterion and "not applicable" may too
    def allowed(d):
        d["criteria"][0].update(label={"en": "Politeness", "ja": "丁寧さ", "zh": "礼貌"}, question="Polite?")
        d["criteria"][0]["not_applicable"] = {"value": "n/a", "label": "Cannot tell", "key": "0"}
        d["criteria"][1]["values"].append({"value": "4", "label": "4"})
        d["criteria"].reverse()
        d["criteria"].append(
            {
                "key": "kind",
                "label": "Kind",
                "unit": "dialogue",
                "level": "nominal",
                "values": [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}],
            }
        )

    changed = scheme_change(project=project, scheme=scheme_from_document(_with(allowed)))
    assert changed.scheme_version == 2
    rows = list(Criterion.objects.filter(project=project).order_by("position"))
    assert [c.key for c in rows] == ["fluent", "polite", "kind"]
    assert rows[1].label == "Politeness" and rows[1].not_applicable_value == "n/a"
    assert rows[0].pk == fluent_answers.pk and rows[0].allowed_values() == ["1", "2", "3", "4"]
    assert rows[1].judgements.count() == 1  # the answer stays the answer of the same criterion
    exported = scheme_export(project=changed)
    assert exported["criteria"][1]["label"] == {"en": "Politeness", "ja": "丁寧さ", "zh": "礼貌"}

    # and the command line says the same
    path = tmp_path / "changed.yaml"
    path.write_text(scheme_yaml(_with(lambda d: d["criteria"][0].update(level="ordinal"))), encoding="utf-8")
    with pytest.raises(CommandError, match="criterion polite has answers: its level cannot change"):
        call_command("change_scheme", "small", str(path))
    out = io.StringIO()
    call_command("export_scheme", "small", "--json", stdout=out)
    assert '"Politeness"' in out.getvalue()
