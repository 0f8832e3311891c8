from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from annotator.models import AssignmentStatus, Project, Role


def projects_for_user(*, user) -> QuerySet[Project]:
    """Projects the user belongs to, with their role and their own progress counts."""
    return (
        Project.objects.filter(memberships__user=user, memberships__active=True)
        .annotate(
            dialogue_count=Count("dialogues", distinct=True),
            my_assigned=Count(
                "dialogues__assignments", filter=Q(dialogues__assignments__annotator=user), distinct=True
            ),
            my_submitted=Count(
                "dialogues__assignments",
                filter=Q(
                    dialogues__assignments__annotator=user, dialogues__assignments__status=AssignmentStatus.SUBMITTED
                ),
                distinct=True,
            ),
        )
        .order_by("slug")
    )


def is_lead(*, user, project: Project) -> bool:
    return project.memberships.filter(user=user, role=Role.LEAD, active=True).exists()
