"""Signing in with OpenID Connect through ``mozilla-django-oidc`` (on when ``OIDC_ENABLED``; config/settings/sso.py).

The provider's endpoints come from the settings, or else from its discovery document
(``OIDC_ISSUER``/.well-known/openid-configuration, read once per process). A new user is created under the
provider's ``OIDC_USERNAME_CLAIM`` (made unique with a number when taken) and the address it gives; at every
sign-in the groups claim is matched against the projects' rules (``annotator.services.sso``).

Every call to the provider (discovery, token, user info, keys) goes through the platform's one outgoing client
(``config.outbound``) instead of the library's own ``requests`` calls: redirects not followed, ``OIDC_TIMEOUT``
seconds (10 unless set) for each call as a whole, answers capped. The hosts the operator set (the issuer's and
any endpoint in the settings) may be internal (a university's provider on its network); an endpoint that only
the discovery document names must be public unless ``OUTBOUND_ALLOWED_HOSTS`` names it. A call that fails
refuses the sign-in (the login page says single sign-on failed) and is logged.
"""

from __future__ import annotations

import base64
import functools
import json
import logging
from urllib.parse import urlencode

import jwt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.utils.encoding import smart_str
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import import_from_settings
from mozilla_django_oidc.views import OIDCAuthenticationRequestView

from annotator.services.sso import sso_memberships_apply
from config.outbound.addresses import OutboundError
from config.outbound.client import Answer, outbound_send
from config.outbound.policy import allowed_hosts, max_response_bytes

log = logging.getLogger(__name__)

DISCOVERED = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}


def provider_call(method: str, url: str, *, headers: dict | None = None, form: dict | None = None) -> Answer:
    """One call to the provider through ``config.outbound``; a failure or a non-2xx answer raises
    ``OutboundError`` (the answer's status line, never its body)."""
    operator_urls = [settings.OIDC_ISSUER, *(getattr(settings, name) for name in DISCOVERED)]
    sent = dict(headers or {})
    body = b""
    if form is not None:
        body = urlencode(form).encode()
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    answer = outbound_send(
        method=method,
        url=url,
        headers=sent,
        body=body,
        seconds=float(settings.OIDC_TIMEOUT),
        max_bytes=max_response_bytes(),
        allowed=allowed_hosts(*operator_urls),
    )
    if not 200 <= answer.status < 300:
        raise OutboundError("the provider answered %(status)s", status=answer.status_line)
    return answer


def _json(answer: Answer) -> dict:
    try:
        found = json.loads(answer.body)
    except ValueError:
        raise OutboundError("the provider's answer is not JSON") from None
    if not isinstance(found, dict):
        raise OutboundError("the provider's answer is not a JSON object")
    return found


@functools.cache
def discovery(issuer: str) -> dict:
    """The provider's discovery document."""
    return _json(provider_call("GET", f"{issuer.rstrip('/')}/.well-known/openid-configuration"))


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
    """Checks the provider's answer and makes or updates the user and their memberships. Its three calls to the
    provider are the library's, made through ``provider_call``."""

    @staticmethod
    def get_settings(attr, *args):
        return provider_setting(attr, *args)

    def authenticate(self, request, **kwargs):
        try:
            return super().authenticate(request, **kwargs)
        except OutboundError as exc:
            log.warning("single sign-on refused: a call to the provider failed (%s)", exc)
            raise PermissionDenied from None

    def get_token(self, payload):
        payload, headers = dict(payload), {"Accept": "application/json"}
        if self.get_settings("OIDC_TOKEN_USE_BASIC_AUTH", False):  # the client's credentials in the header
            pair = f"{payload['client_id']}:{payload.pop('client_secret')}"  # as the library's HTTPBasicAuth
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        return _json(provider_call("POST", self.OIDC_OP_TOKEN_ENDPOINT, headers=headers, form=payload))

    def get_userinfo(self, access_token, id_token, payload):
        answer = provider_call("GET", self.OIDC_OP_USER_ENDPOINT, headers={"Authorization": f"Bearer {access_token}"})
        if answer.headers.get("content-type", "").lower().startswith("application/jwt"):
            return self.verify_token(answer.body.decode("ascii", "replace"))  # claims signed as a JWT
        return _json(answer)

    def retrieve_matching_jwk(self, token):
        """The provider's key that signed ``token``: the one with its key id (and its algorithm, when the key
        names one), as the library chooses it."""
        keys = _json(provider_call("GET", self.OIDC_OP_JWKS_ENDPOINT)).get("keys") or []
        header = jwt.get_unverified_header(token)
        check_kid = import_from_settings("OIDC_VERIFY_KID", True)
        key = None
        for jwk in keys:
            if check_kid and jwk.get("kid") != smart_str(header.get("kid")):
                continue
            if "alg" in jwk and jwk["alg"] != smart_str(header.get("alg")):
                continue
            key = jwk
        if key is None:
            raise SuspiciousOperation("Could not find a valid JWKS.")
        return jwt.PyJWK(key)

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
