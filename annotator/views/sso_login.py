"""Signing in with OpenID Connect through ``mozilla-django-oidc`` (on when ``OIDC_ENABLED``; config/settings/sso.py).

The provider's endpoints come from the settings, or else from its discovery document
(``OIDC_ISSUER``/.well-known/openid-configuration, read once per process). A new user is created under the
provider's ``OIDC_USERNAME_CLAIM`` (made unique with a number when taken) and the address it gives; at every
sign-in the groups claim is matched against the projects' rules (``annotator.services.sso``).
"""

from __future__ import annotations

import functools

import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import import_from_settings
from mozilla_django_oidc.views import OIDCAuthenticationRequestView

from annotator.services.sso import sso_memberships_apply

DISCOVERED = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}


@functools.cache
def discovery(issuer: str) -> dict:
    """The provider's discovery document."""
    answer = requests.get(f"{issuer.rstrip('/')}/.well-known/openid-configuration", timeout=10)
    answer.raise_for_status()
    return answer.json()


def provider_setting(attr: str, *args):
    """A setting, with the endpoints found through discovery when the settings leave them empty."""
    value = getattr(settings, attr, "")
    if attr in DISCOVERED and not value and settings.OIDC_ISSUER:
        return discovery(settings.OIDC_ISSUER)[DISCOVERED[attr]]
    return import_from_settings(attr, *args)


class ProviderLogin(OIDCAuthenticationRequestView):
    """Sends the browser to the provider (``OIDC_AUTHENTICATE_CLASS``)."""

    @staticmethod
    def get_settings(attr, *args):
        return provider_setting(attr, *args)


class ProviderBackend(OIDCAuthenticationBackend):
    """Checks the provider's answer and makes or updates the user and their memberships."""

    @staticmethod
    def get_settings(attr, *args):
        return provider_setting(attr, *args)

    def _groups(self, claims: dict) -> list[str]:
        groups = claims.get(settings.OIDC_GROUPS_CLAIM) or []
        return [groups] if isinstance(groups, str) else [str(g) for g in groups]

    def create_user(self, claims):
        User = get_user_model()
        base = str(claims.get(settings.OIDC_USERNAME_CLAIM) or claims.get("email", "").split("@")[0] or "user")[:140]
        username, n = base, 1
        while User.objects.filter(username__iexact=username).exists():
            n += 1
            username = f"{base}{n}"
        user = User.objects.create_user(username=username, email=claims.get("email", ""))
        sso_memberships_apply(user=user, groups=self._groups(claims))
        return user

    def update_user(self, user, claims):
        sso_memberships_apply(user=user, groups=self._groups(claims))
        return user
