"""A save's body read, and its answer written, without DRF's serializers (they cost a third of a save more).

Measured by ``bench/save_bypasses.py`` (CPU per save through the WSGI handler, variants interleaved): 6.0 ms as
the platform runs against 8.4 ms with ``JudgementsIn`` and ``AssignmentOut`` (1.39 x; median of 5 rounds of 360
saves each, on the shared 2-core machine at load 11-15, 2026-11-28).

``JudgementsIn`` (nested DRF serializers) copies its fields for every request and runs every field
through its validators: more than a quarter of the CPU of a save. A body whose every field already has the
exact type and form the serializer would give (strings that need no trimming, non-negative integers,
booleans) validates to itself, so it is taken as it is; anything else (a missing field, a number sent as
a string, a value too long, a stray key) returns None and goes through ``JudgementsIn``, which answers
it with its usual messages. A property test checks that both agree whenever this accepts. The answer
is ``AssignmentOut``'s fields, written out (its schema stays the API's).
"""

from __future__ import annotations

from rest_framework import serializers

MAX_LENGTH = 40  # JudgementIn's CharFields
MAX_SECONDS = 86400
JUDGEMENT_KEYS = frozenset({"criterion", "unit", "value", "base"})
BODY_KEYS = frozenset({"judgements", "reordering", "reordering_base", "version", "submit", "seconds"})


def _plain_text(value, *, blank: bool) -> bool:
    """A string the CharField returns unchanged: no surrounding white space to trim, within the length,
    no NUL or surrogate characters (which it refuses)."""
    return (
        type(value) is str
        and len(value) <= MAX_LENGTH
        and (blank or value != "")
        and value == value.strip()
        and "\x00" not in value
        and not any("\ud800" <= c <= "\udfff" for c in value)
    )


def _count(value, most: int | None = None) -> bool:
    return type(value) is int and value >= 0 and (most is None or value <= most)


def _order(value) -> bool:
    return value is None or (type(value) is list and all(_count(v) for v in value))


def judgements_in_plain(data) -> dict | None:
    """``JudgementsIn(data=data).validated_data`` when ``data`` is in plain form, else None."""
    if type(data) is not dict or not data.keys() <= BODY_KEYS:
        return None
    judgements = data.get("judgements")
    if type(judgements) is not list:
        return None
    for j in judgements:
        if (
            type(j) is not dict
            or not j.keys() <= JUDGEMENT_KEYS
            or not _plain_text(j.get("criterion"), blank=False)
            or not _count(j.get("unit"))
            or not _plain_text(j.get("value"), blank=True)
            or ("base" in j and j["base"] is not None and not _plain_text(j["base"], blank=True))
        ):
            return None
    if any(key in data and not _order(data[key]) for key in ("reordering", "reordering_base")):
        return None
    if "version" in data and data["version"] is not None and not _count(data["version"]):
        return None
    if "submit" in data and type(data["submit"]) is not bool:
        return None
    if "seconds" in data and not _count(data["seconds"], MAX_SECONDS):
        return None
    return {
        **{key: data[key] for key in ("reordering", "reordering_base", "version") if key in data},
        "judgements": [{key: j[key] for key in ("criterion", "unit", "value", "base") if key in j} for j in judgements],
        "submit": data.get("submit", False),
        "seconds": data.get("seconds", 0),
    }


_DATETIME = serializers.DateTimeField()  # AssignmentOut's times: ISO 8601 in the current time zone


def saved_out(assignment) -> dict:
    """``AssignmentOut(assignment).data`` as a plain dict (tested equal)."""
    return {
        "id": assignment.pk,
        "project": str(assignment.dialogue.project.slug),
        "dialogue": str(assignment.dialogue.external_id),
        "dialogue_id": assignment.dialogue_id,
        "status": str(assignment.status),
        "started_at": _DATETIME.to_representation(assignment.started_at),
        "submitted_at": _DATETIME.to_representation(assignment.submitted_at),
        "seconds_spent": int(assignment.seconds_spent),
        "version": int(assignment.version),
    }
