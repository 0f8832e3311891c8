"""Token authentication with an optional lifetime (``API_TOKEN_LIFETIME_HOURS``), in one plain statement."""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

from annotator.services.accounts import token_expired
from config.plain_rows import instance_from_row


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's ``Authorization: Token KEY``; a token older than the lifetime answers 401 saying so.

    The token and its user are read by one plain ``SELECT ... JOIN`` on every request, not cached: a
    revoked or deleted token, or a deactivated user, is refused by the very next request in every
    process. DRF's ``select_related`` query reads the same, but compiling it cost about a fifth of an
    autosave's CPU (``bench/save_profile.py``). A refusal (no such token, an inactive user) is left to
    DRF's own look-up, which answers with its messages.
    """

    def authenticate_credentials(self, key):
        sql, token_fields, user_fields = _token_query(connection.vendor)
        with connection.cursor() as cursor:
            cursor.execute(sql, [key])
            row = cursor.fetchone()
        if row is None:
            return self._checked(*super().authenticate_credentials(key))  # raises DRF's refusal
        token = instance_from_row(Token, token_fields, row[: len(token_fields)])
        user = instance_from_row(get_user_model(), user_fields, row[len(token_fields) :])
        token.user = user
        if not user.is_active:
            return self._checked(*super().authenticate_credentials(key))  # raises DRF's refusal
        return self._checked(user, token)

    def _checked(self, user, token):
        if token_expired(token):
            raise AuthenticationFailed(gettext("This token has expired: ask for a new one at /api/auth/token/."))
        return user, token


@cache
def _token_query(vendor: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The statement reading a token with its user, and the attribute names of its columns (token's, user's)."""
    user_model, quote = get_user_model(), connection.ops.quote_name
    token_fields, user_fields = Token._meta.concrete_fields, user_model._meta.concrete_fields
    columns = [f"t.{quote(f.column)}" for f in token_fields] + [f"u.{quote(f.column)}" for f in user_fields]
    sql = (
        f"SELECT {', '.join(columns)} FROM {quote(Token._meta.db_table)} t"
        f" JOIN {quote(user_model._meta.db_table)} u ON u.{quote(user_model._meta.pk.column)}"
        f" = t.{quote(Token._meta.get_field('user').column)}"
        f" WHERE t.{quote(Token._meta.get_field('key').column)} = %s"
    )
    return sql, tuple(f.attname for f in token_fields), tuple(f.attname for f in user_fields)
