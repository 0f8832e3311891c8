from __future__ import annotations

from django.db.models import Count

from annotator.models import Assignment, AssignmentStatus, Project, QualityItemKind
from annotator.selectors.qualification import qualification_status


def annotator_queue(*, project: Project, user) -> dict:
    """The user's assignments in the project (their own random order), progress and the item to continue with.

    Training items (a qualification phase) are listed apart and come first; until the user qualifies, the
    real items stay closed (``locked`` counts them) and the next item is a training one.
    """
    everything = list(
        Assignment.objects.filter(dialogue__project=project, annotator=user, imported=False)
        .select_related("dialogue", "dialogue__quality_item")
        .annotate(n_judgements=Count("judgements"))
        .order_by("queue_rank", "pk")
    )

    def training_item(a: Assignment) -> bool:
        item = getattr(a.dialogue, "quality_item", None)
        return item is not None and item.kind == QualityItemKind.TRAINING

    training = [a for a in everything if training_item(a)]
    items = [a for a in everything if not training_item(a)]
    qualification = qualification_status(project=project, user=user) if training else None
    locked = 0
    if qualification is not None and not qualification.open:
        locked, items = len(items), []
    done = sum(a.status == AssignmentStatus.SUBMITTED for a in items)
    unfinished = [a for a in training if a.status != AssignmentStatus.SUBMITTED]
    if qualification is not None and qualification.open:
        unfinished = []
    in_progress = [a for a in items if a.status == AssignmentStatus.IN_PROGRESS]
    pending = [a for a in items if a.status == AssignmentStatus.PENDING]
    next_item = (unfinished or in_progress or pending or [None])[0]
    return {
        "items": items,
        "training": training,
        "qualification": qualification,
        "locked": locked,
        "done": done,
        "total": len(items),
        "next_item": next_item,
        "percent": round(100 * done / len(items)) if items else 0,
    }
