"""An annotator's own assignments, as the API reads them: only in projects they are still an active
member of; units and the reordering in the frame the annotator sees (``ShownFrame``)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from annotator.access import MembershipEnded, active_membership_of_annotator
from annotator.models import Assignment, Reordering
from annotator.selectors.annotation import removed_answers
from annotator.selectors.structure import dialogue_shape
from annotator.units import ShownFrame


def own_assignments(*, user) -> QuerySet[Assignment]:
    """The user's assignments (not imported ones) in projects they are an active member of, in queue
    order, with dialogue and project joined."""
    return (
        Assignment.objects.filter(active_membership_of_annotator(), annotator=user, imported=False)
        .select_related("dialogue__project")
        .order_by("queue_rank", "pk")
    )


def own_assignment_detail(*, user, assignment_id: int) -> dict:
    """One of the user's assignments as plain data: its fields, saved judgements and saved reordering,
    units and turns numbered as shown to the annotator.

    Raises ``Http404`` for an assignment that is not the user's and ``MembershipEnded`` once the
    user was removed from its project. Nothing is attached to the model instance (the reverse
    one-to-one ``assignment.reordering`` must stay untouched).
    """
    assignment = (
        Assignment.objects.filter(annotator=user, imported=False, pk=assignment_id)
        .select_related("dialogue__project")
        .annotate(member_active=active_membership_of_annotator())
        .first()
    )
    if assignment is None:
        raise Http404("no such assignment of yours")
    if not assignment.member_active:
        raise MembershipEnded(assignment.dialogue.project.slug)
    frame = ShownFrame.of(dialogue_shape(assignment.dialogue_id).blocks, assignment.shown_order)
    rows = assignment.judgements.values_list(
        "criterion__key", "criterion__unit", "criterion__position", "unit", "value", "revision"
    )
    shown = sorted(
        (position, key, frame.to_shown(kind, unit), value, revision)
        for key, kind, position, unit, value, revision in rows
    )
    judgements = [{"criterion": key, "unit": unit, "value": value} for _position, key, unit, value, _r in shown]
    revisions = [
        {"criterion": key, "unit": frame.to_shown(kind, unit), "revision": revision}
        for key, kind, unit, revision in removed_answers(assignment.removed or {})
    ] + [{"criterion": key, "unit": unit, "revision": revision} for _position, key, unit, _value, revision in shown]
    reordering, order_revision = Reordering.objects.filter(assignment=assignment).values_list(
        "submitted_order", "revision"
    ).first() or (None, 0)
    return {
        "id": assignment.pk,
        "project": assignment.dialogue.project.slug,
        "dialogue": assignment.dialogue.external_id,
        "dialogue_id": assignment.dialogue_id,
        "status": assignment.status,
        "started_at": assignment.started_at,
        "submitted_at": assignment.submitted_at,
        "seconds_spent": assignment.seconds_spent,
        "version": assignment.version,
        "judgements": judgements,
        "reordering": None if reordering is None else frame.order_to_shown(reordering),
        "revisions": revisions,
        "reordering_revision": order_revision,
    }
