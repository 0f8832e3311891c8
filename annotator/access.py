"""Who may open what, in one place for the pages and the API.

Annotators open their own assignments, members their projects, leads their projects' lead
pages. Someone without a membership learns nothing (404); a member without the role gets 403.
Every read and write of an assignment needs an *active* membership of its project: a member the
lead removed gets 403 with ``MembershipEnded``'s message (their work submitted before stays).
The page helpers take the request and return the object or raise; the DRF permission
classes below wrap the same checks for the API, and the save's row lock
(``annotator.services.judgements``) checks the same condition in its one query.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext
from rest_framework.permissions import BasePermission

from annotator.models import Assignment, Membership, Participant, Project, Role
from annotator.selectors.qualification import may_open

NOT_QUALIFIED = "this item opens once you pass the project's qualification (your queue shows the training items)"


class MembershipEnded(PermissionDenied):
    """The user was removed from the project (membership inactive): 403 with a message saying so."""

    def __init__(self, project_slug: str):
        self.project_slug = project_slug
        super().__init__(
            gettext(
                "You are no longer a member of project %(slug)s: a project lead removed you. "
                "The work you submitted before stays; you cannot open or change its items any more."
            )
            % {"slug": project_slug}
        )


def active_membership_of_annotator():
    """``Exists`` over an assignment's rows: its annotator is an active member of its dialogue's project."""
    return Exists(
        Membership.objects.filter(
            project_id=OuterRef("dialogue__project_id"), user_id=OuterRef("annotator_id"), active=True
        )
    )


def require_qualified(user, assignment_id: int) -> None:
    """403 (``PermissionDenied``) if ``assignment_id`` is the user's real item and they have not qualified yet;
    nothing for anyone else's assignments (the caller answers those with 404)."""
    assignment = Assignment.objects.select_related("dialogue").filter(pk=assignment_id, annotator=user).first()
    if assignment is not None and not may_open(assignment=assignment, user=user):
        raise PermissionDenied(NOT_QUALIFIED)


def own_assignment(request, assignment_id: int) -> Assignment:
    """The user's own assignment; anyone else's answers 404 (its existence is not revealed), and
    ``MembershipEnded`` (403) once the user is no longer an active member of its project."""
    assignment = get_object_or_404(
        Assignment.objects.select_related("dialogue__project__adaptive_budget").annotate(
            member_active=active_membership_of_annotator()
        ),
        pk=assignment_id,
        annotator=request.user,
    )
    if not assignment.member_active:
        raise MembershipEnded(assignment.dialogue.project.slug)
    if not may_open(assignment=assignment, user=request.user):  # a real item before the user qualified: 403
        raise PermissionDenied(NOT_QUALIFIED)
    return assignment


def member_project(request, slug: str) -> tuple[Project, Membership]:
    """The project and the user's active membership of it; 404 for anyone who never was a member,
    ``MembershipEnded`` (403) for a member the lead removed."""
    project = get_object_or_404(Project.objects.select_related("adaptive_budget"), slug=slug)  # (no query more)
    membership = Membership.objects.filter(project=project, user=request.user).first()
    if membership is None:
        raise Http404("no such project")
    if not membership.active:
        raise MembershipEnded(project.slug)
    return project, membership


def lead_project(request, slug: str) -> Project:
    """The project if the user leads it; 403 for its annotators, 404 for everyone else."""
    project, membership = member_project(request, slug)
    if membership.role != Role.LEAD:
        raise PermissionDenied(gettext("only the project's leads can open this page"))
    return project


def adjudicator_project(request, slug: str) -> Project:
    """The project if the user leads it or adjudicates in it; 403 for its annotators, 404 for everyone else."""
    project, membership = member_project(request, slug)
    if membership.role not in (Role.LEAD, Role.ADJUDICATOR):
        raise PermissionDenied(gettext("only the project's leads and adjudicators can open this page"))
    return project


def can_create_projects(user) -> bool:
    """Staff, and anyone who already leads a project, may start new ones (or import an archive)."""
    return user.is_staff or user.memberships.filter(role=Role.LEAD, active=True).exists()


def is_study_participant(user) -> bool:
    """A study's participant: an account the study link signs in, with no password, joining no other projects."""
    return Participant.objects.filter(user_id=user.pk).exists()


class CanCreateProjects(BasePermission):
    """For the API: staff and leads of a project may create projects."""

    message = "only staff and project leads can create projects"

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and can_create_projects(request.user))


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
