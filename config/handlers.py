"""The WSGI application: Django's handler, with a shorter middleware chain for API requests with a token.

A request to ``/api/`` that carries ``Authorization: Token ...`` is authenticated by its token alone
(DRF's ``ExpiringTokenAuthentication``: a missing or revoked token answers 401, it never falls back to
the session), so the middleware that serve browser sessions have nothing to do there: the session,
the CSRF cookie (DRF enforces CSRF itself, for session-authenticated requests only), the
authentication middleware's lazy user (DRF sets ``request.user``), the user's stored interface
language (kept in the session), the messages, the static files and the login lockouts. Skipping them
(``TOKEN_API_SKIPPED_MIDDLEWARE``) saves about a twentieth of an autosave's CPU (``bench/save_bypasses.py``: 6.0 ms
per save against 6.3 ms through the whole chain, 1.04 x, median of 5 interleaved rounds of 360 saves at load 11-15,
2026-11-28; it was a tenth when measured first); everything else runs as
for any request: the trusted-proxy filter, the security headers and the Content-Security-Policy,
the upload limit, the language from ``Accept-Language``, the common middleware and X-Frame-Options.
Every other request (pages, session-authenticated API calls from the pages, the token endpoint, a
request without a token) takes the full chain.
"""

from __future__ import annotations

from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIHandler

API_PREFIX = "/api/"


def token_api_request(request) -> bool:
    """Whether ``request`` is an API request that authenticates with a token (the shorter chain's)."""
    return (
        request.path_info.startswith(API_PREFIX) and request.META.get("HTTP_AUTHORIZATION", "")[:6].lower() == "token "
    )


class _TokenApiHandler(BaseHandler):
    """Django's request handling with ``MIDDLEWARE`` less ``TOKEN_API_SKIPPED_MIDDLEWARE``."""

    def load_middleware(self, is_async: bool = False) -> None:
        full = settings.MIDDLEWARE
        # BaseHandler reads settings.MIDDLEWARE; the shorter list is put there while this chain is built
        # (once, at start-up, before any request)
        settings.MIDDLEWARE = [m for m in full if m not in settings.TOKEN_API_SKIPPED_MIDDLEWARE]
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = full


class Handler(WSGIHandler):
    """``WSGIHandler`` that hands token-authenticated API requests to the shorter chain."""

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async)
        self._token_api = _TokenApiHandler()
        self._token_api.load_middleware(is_async)

    def get_response(self, request):
        if token_api_request(request):
            return self._token_api.get_response(request)
        return super().get_response(request)
