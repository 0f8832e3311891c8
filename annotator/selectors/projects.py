"""Reads of projects and their dialogues for one user, shared by the pages and the API."""

from __future__ import annotations

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery

from annotator.models import AssignmentStatus, Dialogue, Membership, Project, Role


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


def projects_with_role(*, user) -> QuerySet[Project]:
    """Projects the user is an active member of, each annotated with the user's ``role``, criteria prefetched."""
    role = Membership.objects.filter(project=OuterRef("pk"), user=user, active=True).values("role")[:1]
    return (
        Project.objects.filter(memberships__user=user, memberships__active=True)
        .annotate(role=Subquery(role))
        .prefetch_related("criteria")
        .order_by("slug")
    )


def dialogues_visible(*, user, project: Project, membership: Membership) -> QuerySet[Dialogue]:
    """The project's dialogues a member may read: all of them for leads, their own for annotators."""
    dialogues = Dialogue.objects.filter(project=project)
    if membership.role != Role.LEAD:
        dialogues = dialogues.filter(assignments__annotator=user, assignments__imported=False)
    return dialogues
