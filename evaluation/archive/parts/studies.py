"""Crowdsourced studies: each study's settings and link, its participants and the items released from them.

The study's link (``token``) and each participant's return code are kept, so that a project restored after a
loss (or moved to another instance) keeps its recruiting platform's links and its participants' codes working;
a study whose token another study of the instance already has (a copy restored beside its original) gets a new
link, said in the restore's notes. A participant gets a new participant account (``evaluation.archive.people``).
"""

from __future__ import annotations

import re

from django.utils.translation import gettext

from annotator.models import Participant, ReleasedItem, Study
from annotator.studies.models import study_token_new
from evaluation.archive.context import Names, Restoring
from evaluation.archive.fields import fields_export, fields_restore, plain_fields, rows_create
from scoring.errors import N_

STUDY = plain_fields(Study)
PARTICIPANT = plain_fields(Participant)
RELEASED = plain_fields(ReleasedItem, without=["assignment_number"])
TOKEN = re.compile(r"[A-Za-z0-9_-]{32,64}")  # a link no one can guess, as study_token_new makes


def export(names: Names) -> dict:
    studies = list(Study.objects.filter(project=names.project).order_by("pk").values("pk", *STUDY))
    participants = list(
        Participant.objects.filter(study__project=names.project)
        .order_by("pk")
        .values("pk", "study_id", "user_id", *PARTICIPANT)
    )
    released: dict[int, list] = {}
    for item in (
        ReleasedItem.objects.filter(participant__study__project=names.project)
        .order_by("pk")
        .values("participant_id", "dialogue_id", *RELEASED)
    ):
        released.setdefault(item["participant_id"], []).append(
            fields_export(item, RELEASED) | {"dialogue": names.external_of[item["dialogue_id"]]}
        )
    usernames = names.usernames(p["user_id"] for p in participants)
    of_study: dict[int, list] = {}
    for p in participants:
        of_study.setdefault(p["study_id"], []).append(
            fields_export(p, PARTICIPANT)
            | {"user": usernames[p["user_id"]], "released_items": released.get(p["pk"], [])}
        )
    return {"studies": [fields_export(s, STUDY) | {"participants": of_study.get(s["pk"], [])} for s in studies]}


def studies_restore(restoring: Restoring) -> dict[str, int]:
    """The studies, before the people: each participant's archived username -> their restored study's id."""
    r, rows, participants = restoring.r, [], {}
    archived_studies = restoring.part("studies")
    for i, archived in enumerate(archived_studies):
        where = f"studies[{i}]"
        values = fields_restore(r, archived, Study, STUDY, where)
        if not TOKEN.fullmatch(values["token"]) or Study.objects.filter(token=values["token"]).exists():
            values["token"] = study_token_new()
            restoring.notes.append(
                gettext("The study %(name)s has a new link: give it to your recruiting platform again.")
                % {"name": values["name"]}
            )
        rows.append(Study(project=restoring.project, **values))
    made = rows_create(Study, rows)
    restoring.studies = [s.pk for s in made]
    for i, (archived, study) in enumerate(zip(archived_studies, made)):
        for k, p in enumerate(r.field(archived, "participants", list, f"studies[{i}]")):
            name = r.text(p, "user", f"studies[{i}].participants[{k}]", non_empty=True)
            if name in participants:
                raise r.error(N_("%(name)s is two participants"), f"studies[{i}].participants[{k}].user", name=name)
            participants[name] = study.pk
    return participants


def participants_restore(restoring: Restoring) -> None:
    """The participants and their released items, once the people and the dialogues are restored."""
    r, rows, released_of = restoring.r, [], []
    for i, (archived, study_id) in enumerate(zip(restoring.part("studies"), restoring.studies)):
        for k, p in enumerate(archived["participants"]):
            where = f"studies[{i}].participants[{k}]"
            values = fields_restore(r, p, Participant, PARTICIPANT, where)
            rows.append(Participant(study_id=study_id, user_id=restoring.people.users[p["user"]], **values))
            items = []
            for n, item in enumerate(r.field(p, "released_items", list, where)):
                here = f"{where}.released_items[{n}]"
                kept = fields_restore(r, item, ReleasedItem, RELEASED, here)
                dialogue = restoring.dialogue(item.get("dialogue"), f"{here}.dialogue")
                items.append(ReleasedItem(dialogue=dialogue, **kept))
            released_of.append(items)
    for participant, items in zip(rows_create(Participant, rows), released_of):
        for item in items:
            item.participant = participant
    rows_create(ReleasedItem, [item for items in released_of for item in items])
