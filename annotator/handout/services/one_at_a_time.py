"""Handing items out one at a time (active pairs on comparison projects, adaptive budgets): the one mechanism.

``hand_out_one`` locks the project's row, as every assignment path does, so two annotators asking at once are
served one after the other and each ``choose`` sees the places the other took: an item's cap or the project's
budget is never overshot. An annotator holds at most one unfinished ordinary item; the next comes when it is
submitted. ``next_item_hand_out`` is what the annotator's pages call: the right chooser for the project, or
nothing for projects whose work is assigned in bulk.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from annotator.models import Assignment, AssignmentStatus, Project
from annotator.pairwise.services.pair_order import pair_orders_fill

Chooser = Callable[[Project, object], "int | None"]  # (locked project, user) -> dialogue id, or None


def hand_out_one(*, project: Project, user, choose: Chooser) -> Assignment | None:
    """Give ``user`` the item ``choose`` picks, or None: they still have one open (theirs to finish first), or
    ``choose`` found nothing. ``choose`` runs under the project's lock and must skip items the user was given."""
    with transaction.atomic():
        project = Project.objects.select_for_update().get(pk=project.pk)  # one hand-out at a time
        unfinished = (
            Assignment.objects.filter(dialogue__project=project, annotator=user, imported=False)
            .exclude(status=AssignmentStatus.SUBMITTED)
            .filter(dialogue__quality_item__isnull=True)
        )
        if unfinished.exists():
            return None
        chosen = choose(project, user)
        if chosen is None:
            return None
        assignment = Assignment.objects.create(annotator=user, dialogue_id=chosen, queue_rank=_next_rank(project, user))
        if pair_orders_fill(project=project, dialogue_ids=[chosen]):  # comparisons: the candidate shown first
            assignment.refresh_from_db(fields=["shown_first"])
        return assignment


def _next_rank(project: Project, user) -> int:
    last = (
        Assignment.objects.filter(dialogue__project=project, annotator=user)
        .order_by("-queue_rank")
        .values_list("queue_rank", flat=True)
        .first()
    )
    return 0 if last is None else last + 1
