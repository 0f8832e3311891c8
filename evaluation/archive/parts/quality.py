"""Quality control: control and training items with their expected answers, qualifications, exclusions and
adjudications (``annotator.models.quality``); the settings are in ``parts.settings``."""

from __future__ import annotations

from annotator.models import Adjudication, AnnotatorExclusion, ExpectedAnswer, Qualification, QualityItem
from evaluation.archive.context import Names, Restoring
from evaluation.archive.fields import fields_export, fields_restore, plain_fields, rows_create
from scoring.errors import N_

ITEM = plain_fields(QualityItem)
ANSWER = plain_fields(ExpectedAnswer, without=["unit", "value"])
QUALIFICATION = plain_fields(Qualification)
EXCLUSION = plain_fields(AnnotatorExclusion)
ADJUDICATION = plain_fields(Adjudication, without=["unit", "value"])


def export(names: Names) -> dict:
    project = names.project
    items = list(
        QualityItem.objects.filter(dialogue__project=project).order_by("pk").values("pk", "dialogue_id", *ITEM)
    )
    answers: dict[int, list] = {}
    for a in (
        ExpectedAnswer.objects.filter(item__dialogue__project=project)
        .order_by("pk")
        .values("item_id", "criterion_id", "unit", "value", *ANSWER)
    ):
        answers.setdefault(a["item_id"], []).append(
            fields_export(a, ANSWER) | {"criterion": names.criterion_key[a["criterion_id"]], "unit": a["unit"],
                                        "value": a["value"]}
        )  # fmt: skip
    qualifications = list(Qualification.objects.filter(project=project).order_by("pk").values(
        "user_id", "admitted_by_id", *QUALIFICATION))  # fmt: skip
    exclusions = list(
        AnnotatorExclusion.objects.filter(project=project)
        .order_by("pk")
        .values("user_id", "excluded_by_id", *EXCLUSION)
    )
    adjudications = list(Adjudication.objects.filter(dialogue__project=project).order_by("pk").values(
        "dialogue_id", "criterion_id", "unit", "value", "adjudicator_id", *ADJUDICATION))  # fmt: skip
    usernames = names.usernames(
        [q[k] for q in qualifications for k in ("user_id", "admitted_by_id")]
        + [e[k] for e in exclusions for k in ("user_id", "excluded_by_id")]
        + [a["adjudicator_id"] for a in adjudications]
    )
    return {
        "quality_items": [
            fields_export(i, ITEM)
            | {"dialogue": names.external_of[i["dialogue_id"]], "answers": answers.get(i["pk"], [])}
            for i in items
        ],
        "qualifications": [
            fields_export(q, QUALIFICATION)
            | {"user": usernames[q["user_id"]], "admitted_by": usernames.get(q["admitted_by_id"])}
            for q in qualifications
        ],
        "exclusions": [
            fields_export(e, EXCLUSION)
            | {"user": usernames[e["user_id"]], "excluded_by": usernames.get(e["excluded_by_id"])}
            for e in exclusions
        ],
        "adjudications": [
            fields_export(a, ADJUDICATION)
            | {
                "dialogue": names.external_of[a["dialogue_id"]],
                "criterion": names.criterion_key[a["criterion_id"]],
                "unit": a["unit"],
                "value": a["value"],
                "adjudicator": usernames.get(a["adjudicator_id"]),
            }
            for a in adjudications
        ],
    }


def restore(restoring: Restoring) -> None:
    _items(restoring)
    _of_people(restoring, "qualifications", Qualification, QUALIFICATION, "admitted_by")
    _of_people(restoring, "exclusions", AnnotatorExclusion, EXCLUSION, "excluded_by")
    _adjudications(restoring)


def _items(restoring: Restoring) -> None:
    r, items, answers_of, seen = restoring.r, [], [], set()
    for i, archived in enumerate(restoring.part("quality_items")):
        where = f"quality_items[{i}]"
        values = fields_restore(r, archived, QualityItem, ITEM, where)
        dialogue = restoring.dialogue(archived.get("dialogue"), f"{where}.dialogue")
        if dialogue.external_id in seen:
            raise r.at(dialogue.external_id).error(N_("is a control or training item twice"), where)
        seen.add(dialogue.external_id)
        items.append(QualityItem(dialogue=dialogue, **values))
        at, answers = r.at(dialogue.external_id), []
        for k, answer in enumerate(r.field(archived, "answers", list, where)):
            here = f"{where}.answers[{k}]"
            kept = fields_restore(r, answer, ExpectedAnswer, ANSWER, here)
            criterion = restoring.criterion(at, answer.get("criterion"), f"{here}.criterion")
            unit, value = restoring.unit_value(
                at, criterion, dialogue.external_id, answer.get("unit"), answer.get("value"), here
            )
            answers.append(ExpectedAnswer(criterion=criterion, unit=unit, value=value, **kept))
        answers_of.append(answers)
    for item, answers in zip(rows_create(QualityItem, items), answers_of):
        for answer in answers:
            answer.item = item
    rows_create(ExpectedAnswer, [a for answers in answers_of for a in answers])


def _of_people(restoring: Restoring, part: str, model, fields, by: str) -> None:
    """Qualifications or exclusions: one row per person; a person the restore did not make anyone is left out."""
    r, rows = restoring.r, []
    for i, archived in enumerate(restoring.part(part)):
        where = f"{part}[{i}]"
        values = fields_restore(r, archived, model, fields, where)
        user = restoring.people.user(r, archived.get("user"), f"{where}.user")
        if user is not None:
            someone = restoring.people.someone(r, archived.get(by), f"{where}.{by}")
            rows.append(model(project=restoring.project, user_id=user, **{f"{by}_id": someone}, **values))
    rows_create(model, rows)


def _adjudications(restoring: Restoring) -> None:
    r, rows = restoring.r, []
    for i, archived in enumerate(restoring.part("adjudications")):
        where = f"adjudications[{i}]"
        values = fields_restore(r, archived, Adjudication, ADJUDICATION, where)
        dialogue = restoring.dialogue(archived.get("dialogue"), f"{where}.dialogue")
        at = r.at(dialogue.external_id)
        criterion = restoring.criterion(at, archived.get("criterion"), f"{where}.criterion")
        unit, value = restoring.unit_value(
            at, criterion, dialogue.external_id, archived.get("unit"), archived.get("value"), where
        )
        adjudicator = restoring.people.someone(r, archived.get("adjudicator"), f"{where}.adjudicator")
        rows.append(Adjudication(dialogue=dialogue, criterion=criterion, unit=unit, value=value,
                                 adjudicator_id=adjudicator, **values))  # fmt: skip
    rows_create(Adjudication, rows)
