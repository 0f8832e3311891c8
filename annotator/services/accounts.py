"""Accounts a lead creates for new members, validated like Django's own forms would."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError


class AccountError(ValueError):
    """A refused account; ``field`` names the form field the message belongs to."""

    def __init__(self, field: str, messages: list[str]):
        self.field, self.messages = field, messages
        super().__init__("; ".join(messages))


def account_create(*, username: str, password: str):
    """A new user with ``username`` and ``password``, both checked by the project's validators.

    Raises ``AccountError`` naming the field: an invalid or taken username, a weak password.
    """
    User = get_user_model()
    try:
        User.username_validator(username)
    except ValidationError as exc:
        raise AccountError("username", exc.messages) from None
    if User.objects.filter(username=username).exists():
        raise AccountError("username", [f"the username {username} is taken"])
    try:
        validate_password(password, User(username=username))
    except ValidationError as exc:
        raise AccountError("password", exc.messages) from None
    return User.objects.create_user(username=username, password=password)
