from __future__ import annotations

from django.db.models import Count

from annotator.models import Assignment, AssignmentStatus, Project


def annotator_queue(*, project: Project, user) -> dict:
    """The user's assignments in the project (their own random order), progress and the item to continue with."""
    items = list(
        Assignment.objects.filter(dialogue__project=project, annotator=user, imported=False)
        .select_related("dialogue")
        .annotate(n_judgements=Count("judgements"))
        .order_by("queue_rank", "pk")
    )
    done = sum(a.status == AssignmentStatus.SUBMITTED for a in items)
    in_progress = [a for a in items if a.status == AssignmentStatus.IN_PROGRESS]
    pending = [a for a in items if a.status == AssignmentStatus.PENDING]
    next_item = (in_progress or pending or [None])[0]
    return {
        "items": items,
        "done": done,
        "total": len(items),
        "next_item": next_item,
        "percent": round(100 * done / len(items)) if items else 0,
    }
