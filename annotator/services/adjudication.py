"""Adjudication: a lead or an adjudicator settles a disputed unit with a final label and a note.

Adjudicated labels are exported beside the gold distributions and each annotator's agreement with
them is part of the statistics; the vote-share distributions themselves stay as the annotators gave them.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext

from annotator import events
from annotator.models import Adjudication, Dialogue, Project
from annotator.selectors.structure import dialogue_shape
from annotator.units import UnitError, check_value, unit_speaker


class AdjudicationError(ValueError):
    pass


@transaction.atomic
def adjudication_record(
    *, project: Project, dialogue_id: int, criterion: str, unit: int, value: str, note: str = "", adjudicator
) -> Adjudication:
    """Record (or replace) the final label of one unit; ``AdjudicationError`` says what does not fit.

    The statistics are asked for once the change commits, whichever door it came through (page, API,
    ``lead_adjudication``)."""
    dialogue = Dialogue.objects.filter(project=project, pk=dialogue_id).first()
    if dialogue is None:
        raise AdjudicationError(
            gettext("no dialogue %(dialogue_id)s in project %(slug)s")
            % {"dialogue_id": dialogue_id, "slug": project.slug}
        )
    found = project.criteria.filter(key=criterion).first()
    if found is None:
        raise AdjudicationError(gettext("unknown criterion %(criterion)s") % {"criterion": repr(criterion)})
    try:
        check_value(found, unit_speaker(found, unit, dialogue_shape(dialogue.pk)), value)
    except UnitError as exc:
        raise AdjudicationError(str(exc)) from None
    record, _created = Adjudication.objects.update_or_create(
        dialogue=dialogue,
        criterion=found,
        unit=unit,
        defaults={"value": value, "note": note.strip(), "adjudicator": adjudicator},
    )
    events.statistics_due(project_id=project.pk)  # annotators' agreement with final labels
    return record


@transaction.atomic
def adjudication_remove(*, project: Project, dialogue_id: int, criterion: str, unit: int) -> int:
    deleted, _ = Adjudication.objects.filter(
        dialogue__project=project, dialogue_id=dialogue_id, criterion__key=criterion, unit=unit
    ).delete()
    if deleted:
        events.statistics_due(project_id=project.pk)
    return deleted
