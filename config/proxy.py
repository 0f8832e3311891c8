"""Forwarded headers are believed only from the reverse proxy.

The TLS-terminating proxy (Caddy in ``docker-compose.yml``) tells the app the request came over
HTTPS with ``X-Forwarded-Proto``; ``SECURE_PROXY_SSL_HEADER`` makes Django believe it. Anyone else
who reaches the app directly could send the same header, so this middleware (first in
``MIDDLEWARE``) removes every ``X-Forwarded-*``/``Forwarded`` header from requests whose peer
address is not in ``TRUSTED_PROXIES`` (addresses or networks, e.g. the proxy's Docker network).
The client's own address is read from ``X-Forwarded-For`` by ``config.client_address``.
"""

from __future__ import annotations

from config.client_address import is_trusted_proxy

FORWARDED_HEADERS = (
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_FORWARDED_FOR",
    "HTTP_FORWARDED",
)


class TrustedProxyHeaders:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not is_trusted_proxy(request.META.get("REMOTE_ADDR", "")):
            for header in FORWARDED_HEADERS:
                request.META.pop(header, None)
        return self.get_response(request)
