"""The checks of a save: conflicts with answers saved elsewhere, a submission's completeness, a
reordering's constraints. Each raises ``SubmissionError`` (or ``ConflictError``) naming what is wrong."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence

from django.utils.translation import gettext

from annotator.models import (
    Assignment,
    Criterion,
)
from annotator.presets.of_project import project_scheme
from annotator.selectors.structure import DialogueShape
from annotator.services.judgements.errors import Conflict, ConflictError, Given, SubmissionError
from annotator.units import (
    ShownFrame,
    names_list,
    required_units,
    shown_rank,
    unit_names,
)
from annotator.wording import criterion_wording, speaker_name


def reordering_problems(order: list[int], turn_speakers: Sequence[str]) -> list[str]:
    """Why ``order`` (original turn indices in the new order) breaks the constraints, if it does."""
    n = len(turn_speakers)
    if sorted(order) != list(range(n)):
        return [f"the reordering must use each of the {n} turns once"]
    shown = [turn_speakers[i] for i in order]
    problems = []
    if shown[0] != turn_speakers[0]:
        problems.append(
            gettext("the first turn must be by %(turn_speakers)s") % {"turn_speakers": speaker_name(turn_speakers[0])}
        )
    if any(a == b for a, b in itertools.pairwise(shown)):
        problems.append(gettext("speakers must strictly alternate"))
    return problems


def _value_label(project, criterion: Criterion, value: str | None) -> str:
    """The value's label as the annotator's page shows it (their language, ``annotator.wording``)."""
    if not value:
        return gettext("no answer")
    return criterion_wording(project, criterion).values.get(value, value)


def check_conflicts(
    assignment: Assignment,
    criteria: dict[str, Criterion],
    shape: DialogueShape,
    given: dict[tuple[str, int], Given],
    stored: tuple[dict[tuple[str, int], str], dict[tuple[str, int], int]],
    order: tuple[list[int] | None, list[int] | None],
    stored_order: tuple[list[int] | None, int],
    *,
    version: int | None,
) -> None:
    """Raise ``ConflictError`` for every answer this save would write over a stored value its client
    has not seen: one written or removed after the ``version`` the client read (its revision is
    newer), or one that is not the ``base`` the client brings. An answer whose stored value already is
    the new one is no conflict. ``stored`` holds the values and their revisions, ``order`` the
    reordering given and its base (``[]``: no order seen), ``stored_order`` the stored one and its revision.

    The conflicts name units and orders as the annotator sees them (``ShownFrame``)."""
    values, revisions = stored
    frame = ShownFrame.of(shape.blocks, assignment.shown_order)
    conflicts: list[Conflict] = []
    problems: list[str] = []
    names: dict[str, dict[int, str]] = {}
    for (key, unit), g in given.items():
        now_stored = values.get((key, unit))
        if now_stored == (g.value or None):
            continue
        written_since = version is not None and revisions.get((key, unit), 0) > version
        if not written_since and (g.base is None or now_stored == (g.base or None)):
            continue
        criterion = criteria[key]
        if criterion.unit not in names:
            names[criterion.unit] = unit_names(criterion.unit, shape.speakers, shape.blocks, assignment.shown_order)
        shown = frame.to_shown(criterion.unit, unit)
        conflicts.append(Conflict(f"j:{key}:{shown}", key, shown, now_stored or "", g.value, g.base or ""))
        problems.append(
            gettext("%(label)s for %(names)s: %(value_label)s there, %(value_label2)s here")
            % {
                "label": criterion_wording(assignment.dialogue.project, criterion).label,
                "names": names[criterion.unit][unit],
                "value_label": _value_label(assignment.dialogue.project, criterion, now_stored),
                "value_label2": _value_label(assignment.dialogue.project, criterion, g.value),
            }
        )
    reordering, reordering_base = order
    theirs, order_revision = stored_order
    seen_order = reordering_base or None
    if reordering is not None and theirs != reordering:
        written_since = version is not None and order_revision > version
        if written_since or (reordering_base is not None and theirs != seen_order):
            shown_theirs = frame.order_to_shown(theirs) if theirs is not None else None
            seen = frame.order_to_shown(seen_order) if seen_order is not None else None
            conflicts.append(
                Conflict(
                    "reordering",
                    "",
                    0,
                    json.dumps(shown_theirs),
                    json.dumps(frame.order_to_shown(reordering)),
                    "" if seen is None else json.dumps(seen),
                )
            )
            problems.append(gettext("the order of the turns was changed there and here"))
    if conflicts:
        raise ConflictError(
            [
                gettext("this item was changed in another tab or window since you last saw it: %(problems)s")
                % {"problems": "; ".join(problems)}
            ],
            conflicts,
            assignment.version,
        )


def check_complete(
    assignment: Assignment,
    criteria: dict[str, Criterion],
    shape: DialogueShape,
    given: dict[tuple[str, int], Given],
    stored: dict[tuple[str, int], str],
    reordering: list[int] | None,
    stored_order: list[int] | None,
) -> None:
    """Raise ``SubmissionError`` naming, as the page shows them, the questions the submission lacks."""
    answered = {key for key, value in stored.items() if value}
    for key, g in given.items():
        if g.value:
            answered.add(key)
        else:
            answered.discard(key)
    problems: list[str] = []
    missing: list[str] = []
    for criterion in criteria.values():
        units = [u for u in required_units(criterion, shape) if (criterion.key, u) not in answered]
        if not units:
            continue
        rank = shown_rank(criterion.unit, shape.blocks, assignment.shown_order)
        units.sort(key=rank.__getitem__)
        frame = ShownFrame.of(shape.blocks, assignment.shown_order)
        missing += [f"j:{criterion.key}:{frame.to_shown(criterion.unit, u)}" for u in units]
        names = unit_names(criterion.unit, shape.speakers, shape.blocks, assignment.shown_order)
        problems.append(
            gettext("%(label)s is missing for %(names_list)s")
            % {
                "label": criterion_wording(assignment.dialogue.project, criterion).label,
                "names_list": names_list([names[u] for u in units]),
            }
        )
    if project_scheme(assignment.dialogue.project).reordering and reordering is None and stored_order is None:
        missing.append("reordering")
        problems.append(gettext("the reordering is missing"))
    if problems:
        raise SubmissionError(problems, missing)


# The row lock, and what a save and its callers' answers (the API's AssignmentOut) read: the
# assignment with its dialogue's id and project, and whether the annotator is still an active member
# of the project (the same rule as annotator.access; one more index lookup on the membership's
# unique (project, user) key). The dialogue's source metadata and the project's guidelines stay in
# the database.
