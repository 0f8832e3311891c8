from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q

from annotator.models import Assignment, AssignmentStatus, Project, QualityItemKind
from annotator.selectors.qualification import QualificationStatus, qualification_status


@dataclass(frozen=True)
class QueueProgress:
    """Where an annotator stands in a project's queue: items submitted of all, those closed until they qualify,
    and the item to continue with (by id)."""

    done: int
    total: int
    locked: int
    next_item_id: int | None
    qualification: QualificationStatus | None
    training_ids: frozenset[int]

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0


def annotator_progress(*, project: Project, user) -> QueueProgress:
    """The user's progress and next item: what an item's page and a submission need, without loading the items.

    Training items (a qualification phase) are counted apart and come first; until the user qualifies, the
    real items stay closed (``locked`` counts them) and the next item is a training one.

    The real items are counted by status in the database and the next one is asked for alone (the first in
    progress, else the first pending, in queue order): an annotator's thousands of items on a large project are
    never read into the request (the training items, a handful, are). The same answer as ``_progress`` over
    every row (tests/annotator/test_queue_progress.py).
    """
    mine = Assignment.objects.filter(dialogue__project=project, annotator=user, imported=False)
    training_item = Q(dialogue__quality_item__kind=QualityItemKind.TRAINING)
    training = list(mine.filter(training_item).order_by("queue_rank", "pk").values_list("pk", "status"))
    items = mine.exclude(training_item)
    by_status = dict(items.order_by().values_list("status").annotate(n=Count("pk")))
    qualification = qualification_status(project=project, user=user) if training else None
    total = sum(by_status.values())
    if qualification is not None and not qualification.open:
        unfinished = [pk for pk, status in training if status != AssignmentStatus.SUBMITTED]
        return QueueProgress(
            done=0,
            total=0,
            locked=total,
            next_item_id=unfinished[0] if unfinished else None,
            qualification=qualification,
            training_ids=frozenset(pk for pk, _ in training),
        )
    following = None
    for status in (AssignmentStatus.IN_PROGRESS, AssignmentStatus.PENDING):
        if by_status.get(status):
            following = items.filter(status=status).order_by("queue_rank", "pk").values_list("pk", flat=True)[:1]
            following = following[0] if following else None
            break
    return QueueProgress(
        done=by_status.get(AssignmentStatus.SUBMITTED, 0),
        total=total,
        locked=0,
        next_item_id=following,
        qualification=qualification,
        training_ids=frozenset(pk for pk, _ in training),
    )


def _progress(project: Project, user, rows: list[tuple[int, str, str | None]]) -> QueueProgress:
    """``annotator_progress`` from the assignments' (id, status, kind of quality item), in queue order."""
    training = [(pk, status) for pk, status, kind in rows if kind == QualityItemKind.TRAINING]
    items = [(pk, status) for pk, status, kind in rows if kind != QualityItemKind.TRAINING]
    qualification = qualification_status(project=project, user=user) if training else None
    locked = 0
    if qualification is not None and not qualification.open:
        locked, items = len(items), []
    unfinished = [pk for pk, status in training if status != AssignmentStatus.SUBMITTED]
    if qualification is not None and qualification.open:
        unfinished = []
    in_progress = [pk for pk, status in items if status == AssignmentStatus.IN_PROGRESS]
    pending = [pk for pk, status in items if status == AssignmentStatus.PENDING]
    return QueueProgress(
        done=sum(status == AssignmentStatus.SUBMITTED for _, status in items),
        total=len(items),
        locked=locked,
        next_item_id=(unfinished or in_progress or pending or [None])[0],
        qualification=qualification,
        training_ids=frozenset(pk for pk, _ in training),
    )


def annotator_queue(*, project: Project, user) -> dict:
    """The user's assignments in the project (their own random order), progress and the item to continue with
    (``annotator_progress``), for the queue page."""
    everything = list(
        Assignment.objects.filter(dialogue__project=project, annotator=user, imported=False)
        .select_related("dialogue", "dialogue__quality_item")
        .order_by("queue_rank", "pk")
    )
    kinds = {a.pk: getattr(getattr(a.dialogue, "quality_item", None), "kind", None) for a in everything}
    progress = _progress(project, user, [(a.pk, a.status, kinds[a.pk]) for a in everything])
    training = [a for a in everything if a.pk in progress.training_ids]
    items = [] if progress.locked else [a for a in everything if a.pk not in progress.training_ids]
    return {
        "items": items,
        "training": training,
        "qualification": progress.qualification,
        "locked": progress.locked,
        "done": progress.done,
        "total": progress.total,
        "next_item": next((a for a in everything if a.pk == progress.next_item_id), None),
        "percent": progress.percent,
    }
