"""What a criterion asks about a dialogue: its units, who wrote each, and which values apply.

One place for the rules both imports and annotators' submissions are checked against.
"""

from __future__ import annotations

from collections.abc import Sequence

from annotator.models import Criterion, Unit

POST_UNITS = {Unit.POST, Unit.SYSTEM_TURN, Unit.REPLY}


class UnitError(ValueError):
    """A judgement that does not fit its criterion; the message says why."""


def unit_speaker(criterion: Criterion, unit: int, speakers: Sequence[str], blocks: Sequence[int]) -> str:
    """The speaker of ``unit`` (blank for the dialogue); raises ``UnitError`` if the unit does not exist
    or is not one the criterion applies to."""
    if criterion.unit == Unit.DIALOGUE:
        if unit != 0:
            raise UnitError(f"dialogue-level criterion {criterion.key} takes unit 0, got {unit}")
        return ""
    if criterion.unit in POST_UNITS:
        if not 0 <= unit < len(speakers):
            raise UnitError(f"no post {unit} (the dialogue has {len(speakers)})")
        speaker = speakers[unit]
    else:
        n_blocks = (blocks[-1] + 1) if blocks else 0
        if not 0 <= unit < n_blocks:
            raise UnitError(f"no turn {unit} (the dialogue has {n_blocks})")
        speaker = speakers[list(blocks).index(unit)]
    if criterion.speaker and speaker != criterion.speaker:
        raise UnitError(f"criterion {criterion.key} applies to {criterion.speaker} turns, this one is by {speaker}")
    return speaker


def check_value(criterion: Criterion, speaker: str, value: str) -> None:
    """Raise ``UnitError`` unless ``value`` is on the criterion's scale for ``speaker``."""
    allowed = criterion.allowed_values(speaker if criterion.speakers else None)
    if value not in allowed:
        whose = f" on a {speaker} unit" if criterion.speakers else ""
        raise UnitError(f"{value!r} is not a value of {criterion.key}{whose} (allowed: {', '.join(allowed)})")


def required_units(criterion: Criterion, speakers: Sequence[str], blocks: Sequence[int]) -> list[int]:
    """Every unit of a dialogue the criterion asks about, in order."""
    if criterion.unit == Unit.DIALOGUE:
        return [0]
    if criterion.unit in POST_UNITS:
        candidates = list(range(len(speakers)))
        speaker_of = list(speakers)
    else:
        n_blocks = (blocks[-1] + 1) if blocks else 0
        candidates = list(range(n_blocks))
        speaker_of = [speakers[list(blocks).index(b)] for b in candidates]
    return [u for u in candidates if not criterion.speaker or speaker_of[u] == criterion.speaker]
