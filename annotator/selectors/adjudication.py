"""Reads of adjudicated labels, keyed the way gold data is: (criterion key, dialogue id, unit)."""

from __future__ import annotations

from annotator.models import Adjudication, Project


def adjudicated_labels(*, project: Project) -> dict[tuple[str, int, int], dict]:
    rows = (
        Adjudication.objects.filter(dialogue__project=project)
        .order_by("criterion__position", "dialogue__position", "unit")
        .values_list(
            "criterion__key", "dialogue_id", "dialogue__external_id", "unit", "value", "note", "adjudicator__username"
        )
    )
    return {
        (key, dialogue_id, unit): {
            "criterion": key,
            "dialogue_id": dialogue_id,
            "dialogue": external_id,
            "unit": unit,
            "value": value,
            "note": note,
            "adjudicator": adjudicator or "",
        }
        for key, dialogue_id, external_id, unit, value, note, adjudicator in rows
    }
