"""Invitations by email: a lead invites an address into a role on a project.

Every address gets the same one-time link: a token signed with the site's key and timestamped
(``django.core.signing``, salted for this use), naming the invitation. It expires after ``INVITATION_MAX_AGE_HOURS``
and serves once. Someone new chooses a username and a password on accepting, the account is created with the
invited address, and they are a member with the invited role. The owner of an account with that address signs in
and accepts with it (``invitation_accept_signed_in``): nobody becomes a member of a project without agreeing, and
inviting answers alike whether or not the address has an account, so the members page never tells a lead who has
one. Mail goes through Django's email backend (``EMAIL_*`` settings).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from annotator.models import Invitation, Project, Role
from annotator.services.projects import membership_add
from annotator.usernames import username_reserved

SALT = "annotator.invitation"


class InvitationInvalid(Exception):
    """The link is unknown, tampered with, expired or used; the message says which, for the person."""


def invitation_token(invitation: Invitation) -> str:
    return signing.dumps({"invitation": invitation.pk}, salt=SALT)


def _absolute(base_url: str, path: str) -> str:
    return base_url.rstrip("/") + path


def _mail(template: str, context: dict, to: str) -> None:
    subject = render_to_string(f"annotator/email/{template}_subject.txt", context).strip()
    body = render_to_string(f"annotator/email/{template}.txt", context)
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [to])


def invitation_send(
    *, project: Project, actor: AbstractBaseUser | None, email: str, role: str, base_url: str
) -> Invitation:
    """Invite ``email`` into ``role`` on ``project``; links in the mail start with ``base_url`` (the site's origin).
    The same whether or not an account has the address (nothing is added until its owner accepts).

    Raises ``ValidationError`` for an address that is not one or a role that does not exist."""
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise ValidationError({"email": _("Enter a valid email address.")}) from None
    if role not in Role.values:
        raise ValidationError({"role": _("Choose a role.")})
    inviter = getattr(actor, "username", "") or _("the project's lead")
    context = {"project": project, "role": Role(role).label, "inviter": inviter}
    invitation = Invitation.objects.create(project=project, email=email, role=role, invited_by=actor)
    link = _absolute(base_url, reverse("invitation_accept", args=[invitation_token(invitation)]))
    hours = settings.INVITATION_MAX_AGE_HOURS
    _mail("invitation", {**context, "link": link, "hours": hours}, email)
    return invitation


def invitation_account(invitation: Invitation) -> AbstractBaseUser | None:
    """The active account with the invited address (the oldest, if several): who accepts by signing in."""
    found = get_user_model().objects.filter(email__iexact=invitation.email, is_active=True)
    return found.order_by("pk").first()


def invitation_from_token(token: str) -> Invitation:
    """The open invitation a link names; ``InvitationInvalid`` when it is unknown, expired or already used."""
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.INVITATION_MAX_AGE_HOURS * 3600)
    except signing.SignatureExpired:
        raise InvitationInvalid(_("This invitation link has expired: ask the project's lead for a new one.")) from None
    except signing.BadSignature:
        raise InvitationInvalid(_("This invitation link is not valid: check that it was copied whole.")) from None
    invitation = Invitation.objects.select_related("project").filter(pk=data.get("invitation")).first()
    if invitation is None:
        raise InvitationInvalid(_("This invitation was withdrawn: ask the project's lead for a new one."))
    if invitation.accepted_at is not None:
        raise InvitationInvalid(_("This invitation link was already used: sign in with the account made from it."))
    return invitation


@transaction.atomic
def invitation_accept(*, token: str, username: str, password: str) -> tuple[AbstractBaseUser, Invitation]:
    """Create the invited person's account (``username``, ``password``, the invited address) and make them a member.

    Raises ``InvitationInvalid`` for a link that no longer serves, ``ValidationError`` per field for a username
    that is taken, invalid or reserved (``annotator.usernames``) or a password the validators refuse."""
    invitation = invitation_from_token(token)
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.accepted_at is not None:  # accepted by a concurrent request since
        raise InvitationInvalid(_("This invitation link was already used: sign in with the account made from it."))
    User = get_user_model()
    username_field = User._meta.get_field(User.USERNAME_FIELD)
    try:
        username_field.run_validators(username)
    except ValidationError as exc:
        raise ValidationError({"username": exc.messages}) from None
    if not username or User.objects.filter(username__iexact=username).exists():
        raise ValidationError({"username": _("This username is taken: choose another one.")})
    if username_reserved(username):
        raise ValidationError({"username": _("This username is reserved: choose another one for the new account.")})
    try:
        validate_password(password, User(username=username, email=invitation.email))
    except ValidationError as exc:
        raise ValidationError({"password1": exc.messages}) from None
    user = User.objects.create_user(username=username, email=invitation.email, password=password)
    membership_add(project=invitation.project, user=user, role=invitation.role)
    invitation.accepted_at = timezone.now()
    invitation.accepted_by = user
    invitation.save(update_fields=["accepted_at", "accepted_by"])
    return user, invitation


@transaction.atomic
def invitation_accept_signed_in(*, token: str, user: AbstractBaseUser) -> Invitation:
    """``user`` (signed in) accepts the invitation sent to their account's address and becomes a member with its
    role.

    Raises ``InvitationInvalid`` for a link that no longer serves or an account of another address."""
    invitation = invitation_from_token(token)
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.accepted_at is not None:  # accepted by a concurrent request since
        raise InvitationInvalid(_("This invitation link was already used: sign in with the account made from it."))
    if not user.email or user.email.casefold() != invitation.email.casefold():
        raise InvitationInvalid(
            _("This invitation was sent to another address: sign in with the account of the address it was sent to.")
        )
    membership_add(project=invitation.project, user=user, role=invitation.role)
    invitation.accepted_at = timezone.now()
    invitation.accepted_by = user
    invitation.save(update_fields=["accepted_at", "accepted_by"])
    return invitation


def invitation_withdraw(*, project: Project, invitation_id: int) -> int:
    """Delete an open invitation: its link then answers "withdrawn"."""
    deleted, _by_model = Invitation.objects.filter(project=project, pk=invitation_id, accepted_at__isnull=True).delete()
    return deleted
