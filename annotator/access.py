"""Who may open what, in one place for the pages and the API.

Annotators open their own assignments, members their projects, leads their projects' lead
pages. Someone without a membership learns nothing (404); a member without the role gets 403.
The page helpers take the request and return the object or raise; the DRF permission
classes below wrap the same checks for the API.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404
from rest_framework.permissions import BasePermission

from annotator.models import Assignment, Membership, Project, Role
from annotator.services.qualification import may_open

NOT_QUALIFIED = "this item opens once you pass the project's qualification (your queue shows the training items)"


def own_assignment(request, assignment_id: int) -> Assignment:
    """The user's own assignment; anyone else's answers 404 (its existence is not revealed). A real item of a
    project with a qualification phase answers 403 until the user qualifies."""
    assignment = get_object_or_404(
        Assignment.objects.select_related("dialogue__project"), pk=assignment_id, annotator=request.user
    )
    if not may_open(assignment=assignment, user=request.user):
        raise PermissionDenied(NOT_QUALIFIED)
    return assignment


def require_qualified(user, assignment_id: int) -> None:
    """403 (``PermissionDenied``) if ``assignment_id`` is the user's real item and they have not qualified yet;
    nothing for anyone else's assignments (the caller answers those with 404)."""
    assignment = Assignment.objects.select_related("dialogue").filter(pk=assignment_id, annotator=user).first()
    if assignment is not None and not may_open(assignment=assignment, user=user):
        raise PermissionDenied(NOT_QUALIFIED)


def member_project(request, slug: str) -> tuple[Project, Membership]:
    """The project and the user's active membership of it; 404 for anyone without one."""
    project = get_object_or_404(Project, slug=slug)
    membership = Membership.objects.filter(project=project, user=request.user, active=True).first()
    if membership is None:
        raise Http404("no such project")
    return project, membership


def lead_project(request, slug: str) -> Project:
    """The project if the user leads it; 403 for its annotators, 404 for everyone else."""
    project, membership = member_project(request, slug)
    if membership.role != Role.LEAD:
        raise PermissionDenied("only the project's leads can open this page")
    return project


def adjudicator_project(request, slug: str) -> Project:
    """The project if the user leads it or adjudicates in it; 403 for its annotators, 404 for everyone else."""
    project, membership = member_project(request, slug)
    if membership.role not in (Role.LEAD, Role.ADJUDICATOR):
        raise PermissionDenied("only the project's leads and adjudicators can open this page")
    return project


def can_create_projects(user) -> bool:
    """Staff, and anyone who already leads a project, may start new ones."""
    return user.is_staff or user.memberships.filter(role=Role.LEAD, active=True).exists()


class IsProjectMember(BasePermission):
    """The view's ``slug`` names a project the user is an active member of.

    Sets ``request.project`` and ``request.membership`` for the view.
    """

    message = "no such project"

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        request.project, request.membership = member_project(request, view.kwargs["slug"])
        return True


class IsProjectLead(IsProjectMember):
    """The view's ``slug`` names a project the user leads (403 for its annotators, 404 otherwise)."""

    message = "only the project's leads can do this"

    def has_permission(self, request, view) -> bool:
        if not super().has_permission(request, view):
            return False
        return request.membership.role == Role.LEAD


class IsProjectAdjudicator(IsProjectMember):
    """The view's ``slug`` names a project the user leads or adjudicates in."""

    message = "only the project's leads and adjudicators can do this"

    def has_permission(self, request, view) -> bool:
        if not super().has_permission(request, view):
            return False
        return request.membership.role in (Role.LEAD, Role.ADJUDICATOR)
