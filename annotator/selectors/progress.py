"""Progress of a project's annotation, for the dashboard (the manage page reads ``annotator.selectors.manage``)."""

from __future__ import annotations

from django.db.models import Count, Q, Sum

from annotator.models import Assignment, AssignmentStatus, Membership, Project, Role

PER_DIALOGUE_LIMIT = 200  # dialogues listed on the dashboard; the manage page pages through all items


def project_progress(*, project: Project, per_dialogue_limit: int = PER_DIALOGUE_LIMIT) -> dict:
    """Per annotator and per dialogue: assigned, submitted, in progress, time spent (native work only).

    Per dialogue: the first ``per_dialogue_limit`` dialogues with native work in import order, and how many
    have some (``per_dialogue_total``): a page listing every dialogue of 37,000 would take seconds to render.
    """
    work = Assignment.objects.filter(dialogue__project=project, imported=False)
    submitted = Q(status=AssignmentStatus.SUBMITTED)
    per_annotator = list(
        work.values("annotator_id", "annotator__username")
        .annotate(
            assigned=Count("pk"),
            submitted=Count("pk", filter=submitted),
            in_progress=Count("pk", filter=Q(status=AssignmentStatus.IN_PROGRESS)),
            seconds=Sum("seconds_spent"),
        )
        .order_by("annotator__username")
    )
    by_dialogue = (
        work.values("dialogue_id")
        .annotate(assigned=Count("pk"), submitted=Count("pk", filter=submitted), seconds=Sum("seconds_spent"))
        .order_by("dialogue__position", "dialogue_id")
        .values("dialogue_id", "dialogue__external_id", "assigned", "submitted", "seconds")
    )
    per_dialogue = [
        {
            "pk": row["dialogue_id"],
            "external_id": row["dialogue__external_id"],
            "assigned": row["assigned"],
            "submitted": row["submitted"],
            "seconds": row["seconds"],
        }
        for row in by_dialogue[:per_dialogue_limit]
    ]
    members = list(
        Membership.objects.filter(project=project, imported=False)
        .select_related("user")
        .order_by("role", "user__username")
    )
    totals = work.aggregate(assigned=Count("pk"), submitted=Count("pk", filter=submitted))
    return {
        "per_annotator": per_annotator,
        "per_dialogue": per_dialogue,
        "per_dialogue_total": by_dialogue.count() if len(per_dialogue) == per_dialogue_limit else len(per_dialogue),
        "members": members,
        "totals": totals,
        "annotators": sum(m.role == Role.ANNOTATOR and m.active for m in members),
    }
