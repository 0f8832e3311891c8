"""Judges (automatic raters) with their labels; an endpoint judge's settings as a lead gives them, never a key.

A judge registered from a run names it by the run's name (the database also holds the run's id, given again on
restore). A judge the platform was still running when the project was archived is restored as failed: run it
again (its answers are cached, so the units already asked are not paid twice). The labels are rows
``[judge's place in the list, dialogue, criterion key, unit, value, distribution, reason]``, read as written.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.utils.translation import gettext

from annotator.exporters.stream import LazyList
from annotator.judges.services.endpoint import EndpointSettingsError, endpoint_settings_check
from annotator.models import Judge, JudgeLabel, JudgeStatus
from evaluation.archive.context import Names, Restoring
from evaluation.archive.fields import fields_export, fields_restore, plain_fields, rows_create
from scoring.errors import N_

JUDGE = plain_fields(Judge)
LABEL_CHUNK = 20000
UNFINISHED = (JudgeStatus.PENDING, JudgeStatus.RUNNING)


def _labels(names: Names, place: dict[int, int]) -> Iterator[list]:
    rows = (
        JudgeLabel.objects.filter(judge__project=names.project)
        .order_by("pk")
        .values_list("judge_id", "dialogue_id", "criterion_id", "unit", "value", "distribution", "reason")
        .iterator(chunk_size=LABEL_CHUNK)
    )
    for judge_id, dialogue_id, criterion_id, unit, value, distribution, reason in rows:
        yield [place[judge_id], names.external_of[dialogue_id], names.criterion_key[criterion_id], unit, value,
               distribution, reason]  # fmt: skip


def export(names: Names) -> dict:
    judges = list(Judge.objects.filter(project=names.project).order_by("pk").values("pk", "created_by_id", *JUDGE))
    usernames = names.usernames(j["created_by_id"] for j in judges)
    out = []
    for j in judges:
        row = fields_export(j, JUDGE) | {"created_by": usernames.get(j["created_by_id"])}
        row["source"] = {k: v for k, v in (j["source"] or {}).items() if k != "run"}  # the run by name: run_name
        out.append(row)
    place = {j["pk"]: i for i, j in enumerate(judges)}
    labels = _labels(names, place)
    return {"judges": out, "judge_labels": LazyList(labels) if names.lazy else list(labels)}


def restore(restoring: Restoring) -> list[int]:
    r, rows = restoring.r, []
    for i, archived in enumerate(restoring.part("judges")):
        where = f"judges[{i}]"
        values = fields_restore(r, archived, Judge, JUDGE, where)
        if values["endpoint_settings"]:
            try:
                values["endpoint_settings"] = endpoint_settings_check(
                    project=restoring.project, given=values["endpoint_settings"]
                )
            except EndpointSettingsError as exc:
                raise r.error(N_("%(problem)s"), f"{where}.endpoint_settings", problem=str(exc)) from None
        run_name = values["source"].get("run_name") if isinstance(values["source"], dict) else None
        if isinstance(run_name, str) and run_name in restoring.runs:
            values["source"] = values["source"] | {"run": restoring.runs[run_name]}
        if values["status"] in UNFINISHED:
            values["status"] = JudgeStatus.FAILED
            values["error"] = gettext("Not finished when the project was archived: run it again.")
        created_by = restoring.people.someone(r, archived.get("created_by"), f"{where}.created_by")
        rows.append(Judge(project=restoring.project, created_by_id=created_by, **values))
    judges = [j.pk for j in rows_create(Judge, rows)]
    _labels_restore(restoring, judges)
    return judges


def _labels_restore(restoring: Restoring, judges: list[int]) -> None:
    r, rows = restoring.r, []
    for i, row in enumerate(restoring.part("judge_labels")):
        where = f"judge_labels[{i}]"
        if not isinstance(row, list) or len(row) != 7:
            raise r.error(N_("expected a list of %(length)s values"), where, length=7)
        place, external_id, key, unit, value, distribution, reason = row
        if not isinstance(place, int) or isinstance(place, bool) or not 0 <= place < len(judges):
            raise r.error(N_("the judge is not in the archive"), f"{where}[0]")
        dialogue = restoring.dialogue(external_id, f"{where}[1]")
        at = r.at(external_id)
        criterion = restoring.criterion(at, key, f"{where}[2]")
        if value == "":  # no usable answer: the unit only
            unit = at.check_int(at.value(unit, int, f"{where}[3]"), f"{where}[3]", (0, 2_147_483_647))
        else:
            unit, value = restoring.unit_value(at, criterion, external_id, unit, value, where)
        if distribution is not None:
            at.check_json(at.value(distribution, dict, f"{where}[5]"), f"{where}[5]")
        reason = at.check_text(at.value(reason, str, f"{where}[6]"), f"{where}[6]")
        rows.append(JudgeLabel(judge_id=judges[place], dialogue=dialogue, criterion=criterion, unit=unit, value=value,
                               distribution=distribution, reason=reason))  # fmt: skip
    JudgeLabel.objects.bulk_create(rows, batch_size=2000)
