"""Token authentication with an optional lifetime (``API_TOKEN_LIFETIME_HOURS``)."""

from __future__ import annotations

from django.utils.translation import gettext
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from annotator.services.accounts import token_expired


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's ``Authorization: Token KEY``; a token older than the lifetime answers 401 saying so."""

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if token_expired(token):
            raise AuthenticationFailed(gettext("This token has expired: ask for a new one at /api/auth/token/."))
        return user, token
