from __future__ import annotations

from dataclasses import dataclass

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
    """The user's progress and next item, from one row per assignment (id, status, kind of quality item): what
    an item's page and a submission need, without loading the items (hundreds each on a large project).

    Training items (a qualification phase) are counted apart and come first; until the user qualifies, the
    real items stay closed (``locked`` counts them) and the next item is a training one.
    """
    rows = (
        Assignment.objects.filter(dialogue__project=project, annotator=user, imported=False)
        .order_by("queue_rank", "pk")
        .values_list("pk", "status", "dialogue__quality_item__kind")
    )
    return _progress(project, user, list(rows))


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
