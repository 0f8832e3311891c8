"""Accounts: API tokens (issued, expired, revoked) and adding existing or new users to a project.

A user has at most one API token. It is revoked - deleted, so that the next request for a token
gets a new key - when the user's password changes (``RevokeTokensOnPasswordChange`` below, hooked
into every ``set_password`` + ``save``: the password change page, the admin, ``changepassword``),
when a lead of one of the user's projects or an admin revokes it, and it expires after
``API_TOKEN_LIFETIME_HOURS`` when that setting is above zero.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import Token

from annotator.models import AccountSettings, Membership, Project, Role
from annotator.services.projects import membership_add
from annotator.usernames import username_reserved


def token_expired(token: Token) -> bool:
    """Whether ``token`` is older than ``API_TOKEN_LIFETIME_HOURS`` (never, when the setting is 0)."""
    hours = settings.API_TOKEN_LIFETIME_HOURS
    return hours > 0 and token.created < timezone.now() - timedelta(hours=hours)


@transaction.atomic
def token_issue(*, user: AbstractBaseUser) -> Token:
    """The user's token: the current one, or a new key when there is none or it expired."""
    token = Token.objects.select_for_update().filter(user=user).first()
    if token is not None and token_expired(token):
        token.delete()
        token = None
    return token or Token.objects.create(user=user)


def tokens_revoke(*, user_id: int) -> int:
    """Delete the user's API tokens (requests with them answer 401 from now on); how many there were."""
    deleted, _by_model = Token.objects.filter(user_id=user_id).delete()
    return deleted


def member_tokens_revoke(*, project: Project, user_id: int) -> int:
    """A lead's "revoke": only for a member (present or removed) of the lead's project."""
    if not Membership.objects.filter(project=project, user_id=user_id).exists():
        raise Membership.DoesNotExist(f"user {user_id} is not a member of {project}")
    return tokens_revoke(user_id=user_id)


class RevokeTokensOnPasswordChange:
    """In ``AUTH_PASSWORD_VALIDATORS``: validates nothing; Django calls ``password_changed`` after every
    saved password change, and the user's API tokens go with the old password."""

    def validate(self, password, user=None) -> None:
        return None

    def password_changed(self, password, user=None) -> None:
        if user is not None and user.pk is not None:
            tokens_revoke(user_id=user.pk)

    def get_help_text(self) -> str:
        return "Changing your password revokes your API token."


def account_findable(*, user: AbstractBaseUser) -> bool:
    return AccountSettings.objects.filter(user=user, findable_by_leads=True).exists()


def accounts_addable(*, actor: AbstractBaseUser | None) -> QuerySet:
    """The existing accounts ``actor`` may make members of a project - by adding them on the members page
    or by restoring an archive that names them: those whose owners agreed to be found by leads, the
    actor's own, and the members of the projects the actor leads. Staff, and the operator running a
    command (``actor`` None), may add any account.
    """
    users = get_user_model().objects.all()
    if actor is None or actor.is_staff:
        return users
    led = Membership.objects.filter(user=actor, role=Role.LEAD, active=True).values("project_id")
    own = Membership.objects.filter(project_id__in=led).values("user_id")
    return users.filter(Q(account_settings__findable_by_leads=True) | Q(pk=actor.pk) | Q(pk__in=own))


def account_settings_save(*, user: AbstractBaseUser, findable_by_leads: bool) -> AccountSettings:
    """The user's own choice: may project leads add them to projects by their exact username?"""
    stored, _created = AccountSettings.objects.update_or_create(
        user=user, defaults={"findable_by_leads": findable_by_leads}
    )
    return stored


def account_language(*, user: AbstractBaseUser) -> str:
    """The interface language the user chose ("" when they follow their browser)."""
    stored = AccountSettings.objects.filter(user=user).values_list("language", flat=True).first()
    return stored or ""


def account_language_save(*, user: AbstractBaseUser, language: str) -> AccountSettings:
    """The user's interface language, one of ``settings.LANGUAGES`` or "" to follow the browser."""
    if language and language not in {code for code, _name in settings.LANGUAGES}:
        raise ValidationError({"language": _("Choose one of the offered languages.")})
    stored, _created = AccountSettings.objects.update_or_create(user=user, defaults={"language": language})
    return stored


NOT_ADDABLE = (
    "No account can be added under this username: either it does not exist or its owner has not "
    "agreed to be found by project leads (they can agree on their Account page). To create a new "
    "account, give a password."
)


@transaction.atomic
def membership_add_account(
    *, project: Project, actor: AbstractBaseUser, username: str, password: str, role: str
) -> Membership:
    """A lead adds a member by exact username: an existing account the lead may add (``accounts_addable``:
    its owner agreed to be found by leads, or it is a member of a project the lead leads; staff may add
    any account), or else a new account with ``password``.

    A lead who is not staff learns nothing about accounts that did not agree: the answer for them
    is the same as for a username nobody has. Usernames of new accounts pass Django's username
    validator and are not reserved (``annotator.usernames``), and their passwords the password validators.
    Raises ``ValidationError`` with a message per field.
    """
    User = get_user_model()
    existing = User.objects.filter(username=username).first()
    if existing is not None and accounts_addable(actor=actor).filter(pk=existing.pk).exists():
        return membership_add(project=project, user=existing, role=role)
    if not password:
        raise ValidationError({"username": NOT_ADDABLE})
    username_field = User._meta.get_field(User.USERNAME_FIELD)
    try:
        username_field.run_validators(username)
    except ValidationError as exc:
        raise ValidationError({"username": exc.messages}) from None
    if existing is not None:
        raise ValidationError({"username": _("This username is taken: choose another one for the new account.")})
    if username_reserved(username):
        raise ValidationError({"username": _("This username is reserved: choose another one for the new account.")})
    candidate = User(username=username)
    try:
        validate_password(password, candidate)
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from None
    user = User.objects.create_user(username=username, password=password)
    return membership_add(project=project, user=user, role=role)
