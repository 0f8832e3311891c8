"""Progress of a project's annotation, for the dashboard (the manage page reads ``annotator.selectors.manage``)."""

from __future__ import annotations

from django.db.models import Count, Q, Sum

from annotator.models import Assignment, AssignmentStatus, Membership, Project, Role


def project_progress(*, project: Project) -> dict:
    """Per annotator and per dialogue: assigned, submitted, in progress, time spent (native work only)."""
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
    per_dialogue = list(
        project.dialogues.annotate(
            assigned=Count("assignments", filter=Q(assignments__imported=False)),
            submitted=Count(
                "assignments", filter=Q(assignments__imported=False, assignments__status=AssignmentStatus.SUBMITTED)
            ),
            seconds=Sum("assignments__seconds_spent", filter=Q(assignments__imported=False)),
        )
        .order_by("position", "pk")
        .values("pk", "external_id", "assigned", "submitted", "seconds")
    )
    members = list(
        Membership.objects.filter(project=project, imported=False)
        .select_related("user")
        .order_by("role", "user__username")
    )
    totals = work.aggregate(assigned=Count("pk"), submitted=Count("pk", filter=submitted))
    return {
        "per_annotator": per_annotator,
        "per_dialogue": per_dialogue,
        "members": members,
        "totals": totals,
        "annotators": sum(m.role == Role.ANNOTATOR and m.active for m in members),
    }
