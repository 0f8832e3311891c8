"""People in: a lead's invitations by email, the invited person's page, the single sign-on group rules, and the
request for a password reset.

Password resets are Django's own views (``annotator/urls.py``) with the site's templates (``registration/``); the
request is ``PasswordReset``: rate-limited per client address and per email address, and mailing an address
without an account too (``PasswordResetEveryAddressForm``), so that neither its words nor its time tell whether the
address has one.
"""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from annotator.access import lead_project
from annotator.forms import InvitationAcceptForm, PasswordResetEveryAddressForm
from annotator.models import Role
from annotator.services.invitations import (
    InvitationInvalid,
    invitation_accept,
    invitation_accept_signed_in,
    invitation_account,
    invitation_from_token,
    invitation_send,
    invitation_withdraw,
)
from annotator.services.sso import project_sso_groups_save
from config.throttling import CountedRate, address_key, rates_wait


def _mail_where() -> str:
    """Where the mail went, for the lead's message on set-ups that print it instead of sending it."""
    if settings.EMAIL_BACKEND.endswith("console.EmailBackend"):
        return " " + gettext("(This server prints mail on its terminal instead of sending it: see docs/settings.md.)")
    return ""


@login_required
@require_POST
def invite(request, slug: str):
    project = lead_project(request, slug)
    email, role = request.POST.get("email", "").strip(), request.POST.get("role", Role.ANNOTATOR)
    members = f"{reverse('lead_project', args=[slug])}#members-heading"
    limits = [CountedRate("invitation_client", settings.INVITATION_RATES["client"])]
    if email:
        limits.append(CountedRate("invitation_address", settings.INVITATION_RATES["address"], address_key(email)))
    wait = rates_wait(request, limits)
    if wait is not None:
        minutes = max(1, round(wait / 60))
        messages.error(
            request,
            gettext("Too many invitations from your address, or to this address: try again in about %(minutes)s min.")
            % {"minutes": minutes},
        )
        return redirect(members)
    try:
        invitation = invitation_send(
            project=project, actor=request.user, email=email, role=role, base_url=request.build_absolute_uri("/")
        )
    except ValidationError as exc:
        for problems in exc.message_dict.values():
            for problem in problems:
                messages.error(request, problem)
        return redirect(members)
    # the same words whether or not the address has an account: the lead learns nothing about who has one
    text = gettext("Sent an invitation to %(email)s as %(role)s.") % {
        "email": invitation.email,
        "role": Role(role).label,
    }
    messages.success(request, text + _mail_where())
    return redirect(members)


@login_required
@require_POST
def invitation_remove(request, slug: str, invitation_id: int):
    project = lead_project(request, slug)
    if invitation_withdraw(project=project, invitation_id=invitation_id):
        messages.success(request, gettext("Withdrew the invitation: its link no longer works."))
    return redirect(f"{reverse('lead_project', args=[slug])}#members-heading")


def _invalid(request, problem: str):
    return render(request, "registration/invitation_invalid.html", {"problem": problem}, status=404)


def _landing(request, user, invitation):
    messages.success(
        request,
        gettext("Welcome, %(username)s: you are %(role)s of %(name)s.")
        % {"username": user.get_username(), "role": invitation.get_role_display(), "name": invitation.project.name},
    )
    if invitation.role == Role.LEAD:
        return redirect("lead_project", slug=invitation.project.slug)
    return redirect("queue", slug=invitation.project.slug)


def accept(request, token: str):
    """The invited person's page. Someone new chooses a username and a password; the owner of an account with the
    invited address signs in and accepts with it (a button, CSRF-checked); either then lands in the project."""
    try:
        invitation = invitation_from_token(token)
    except InvitationInvalid as exc:
        return _invalid(request, str(exc))
    account = invitation_account(invitation)
    if account is not None:
        return _accept_with_account(request, token, invitation, account)
    form = InvitationAcceptForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user, invitation = invitation_accept(
                token=token, username=form.cleaned_data["username"], password=form.cleaned_data["password1"]
            )
        except InvitationInvalid as exc:
            return _invalid(request, str(exc))
        except ValidationError as exc:
            for field, problems in exc.message_dict.items():
                form.add_error(field, problems)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return _landing(request, user, invitation)
    return render(
        request,
        "registration/invitation_accept.html",
        {"form": form, "invitation": invitation},
        status=400 if form.errors else 200,
    )


def _accept_with_account(request, token: str, invitation, account):
    """The invitation of an address that has an account: signed in as it, a button to accept; signed in as
    someone else, the way to switch; signed out, the way to sign in (and back here)."""
    page = "registration/invitation_account.html"
    if not request.user.is_authenticated:
        login_url = f"{reverse('login')}?next={quote(request.get_full_path())}"
        return render(request, page, {"invitation": invitation, "state": "sign_in", "login": login_url})
    if request.user.pk != account.pk and request.user.email.casefold() != invitation.email.casefold():
        return render(request, page, {"invitation": invitation, "state": "other_account"}, status=403)
    if request.method == "POST":
        try:
            invitation = invitation_accept_signed_in(token=token, user=request.user)
        except InvitationInvalid as exc:
            return _invalid(request, str(exc))
        return _landing(request, request.user, invitation)
    return render(request, page, {"invitation": invitation, "state": "join"})


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


class PasswordReset(auth_views.PasswordResetView):
    """Django's page, with the limits of ``PASSWORD_RESET_RATES`` (429 and the wait above them)."""

    form_class = PasswordResetEveryAddressForm

    def form_valid(self, form):
        email = form.cleaned_data["email"]
        limits = [
            CountedRate("password_reset_client", settings.PASSWORD_RESET_RATES["client"]),
            CountedRate("password_reset_address", settings.PASSWORD_RESET_RATES["address"], address_key(email)),
        ]
        wait = rates_wait(self.request, limits)
        if wait is None:
            return super().form_valid(form)
        form.add_error(
            None,
            gettext(
                "Too many reset requests from your address or for this email address: try again in about "
                "%(minutes)s min."
            )
            % {"minutes": max(1, round(wait / 60))},
        )
        return self.render_to_response(self.get_context_data(form=form), status=429)
