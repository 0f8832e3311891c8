"""People in: a lead's invitations by email, the invited person's page, the single sign-on group rules.

Password resets are Django's own views (``annotator/urls.py``) with the site's templates (``registration/``).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from annotator.access import lead_project
from annotator.forms import InvitationAcceptForm
from annotator.models import Role
from annotator.services.invitations import (
    InvitationInvalid,
    invitation_accept,
    invitation_from_token,
    invitation_send,
    invitation_withdraw,
)
from annotator.services.sso import project_sso_groups_save


def _mail_where() -> str:
    """Where the mail went, for the lead's message on set-ups that print it instead of sending it."""
    if settings.EMAIL_BACKEND.endswith("console.EmailBackend"):
        return " " + gettext("(This server prints mail on its terminal instead of sending it: see docs/settings.md.)")
    return ""


@login_required
@require_POST
def invite(request, slug: str):
    project = lead_project(request, slug)
    email, role = request.POST.get("email", ""), request.POST.get("role", Role.ANNOTATOR)
    try:
        invited = invitation_send(
            project=project, actor=request.user, email=email, role=role, base_url=request.build_absolute_uri("/")
        )
    except ValidationError as exc:
        for problems in exc.message_dict.values():
            for problem in problems:
                messages.error(request, problem)
        return redirect(f"{reverse('lead_project', args=[slug])}#members-heading")
    if invited.added is not None:
        text = gettext("%(email)s already has an account (%(username)s): added as %(role)s and told by email.") % {
            "email": invited.email,
            "username": invited.added.get_username(),
            "role": Role(role).label,
        }
    else:
        text = gettext("Sent an invitation to %(email)s as %(role)s.") % {
            "email": invited.email,
            "role": Role(role).label,
        }
    messages.success(request, text + _mail_where())
    return redirect(f"{reverse('lead_project', args=[slug])}#members-heading")


@login_required
@require_POST
def invitation_remove(request, slug: str, invitation_id: int):
    project = lead_project(request, slug)
    if invitation_withdraw(project=project, invitation_id=invitation_id):
        messages.success(request, gettext("Withdrew the invitation: its link no longer works."))
    return redirect(f"{reverse('lead_project', args=[slug])}#members-heading")


def accept(request, token: str):
    """The invited person's page: choose a username and a password, then land in the project, signed in."""
    try:
        invitation = invitation_from_token(token)
    except InvitationInvalid as exc:
        return render(request, "registration/invitation_invalid.html", {"problem": str(exc)}, status=404)
    form = InvitationAcceptForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user, invitation = invitation_accept(
                token=token, username=form.cleaned_data["username"], password=form.cleaned_data["password1"]
            )
        except InvitationInvalid as exc:
            return render(request, "registration/invitation_invalid.html", {"problem": str(exc)}, status=404)
        except ValidationError as exc:
            for field, problems in exc.message_dict.items():
                form.add_error(field, problems)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(
                request,
                gettext("Welcome, %(username)s: you are %(role)s of %(name)s.")
                % {
                    "username": user.get_username(),
                    "role": invitation.get_role_display(),
                    "name": invitation.project.name,
                },
            )
            if invitation.role == Role.LEAD:
                return redirect("lead_project", slug=invitation.project.slug)
            return redirect("queue", slug=invitation.project.slug)
    return render(
        request,
        "registration/invitation_accept.html",
        {"form": form, "invitation": invitation},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def sso_groups(request, slug: str):
    """The lead's rules: which single sign-on groups become which role in this project (one "group = role" a line)."""
    project = lead_project(request, slug)
    try:
        project_sso_groups_save(project=project, text=request.POST.get("sso_groups", ""))
    except ValidationError as exc:
        for problem in exc.messages:
            messages.error(request, problem)
    else:
        messages.success(request, gettext("Saved the single sign-on group rules."))
    return redirect(f"{reverse('lead_project', args=[slug])}#sso-heading")
