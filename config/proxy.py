"""Forwarded headers are believed only from the reverse proxy.

The TLS-terminating proxy (Caddy in ``docker-compose.yml``) tells the app the request came over
HTTPS with ``X-Forwarded-Proto``; ``SECURE_PROXY_SSL_HEADER`` makes Django believe it. Anyone else
who reaches the app directly could send the same header, so this middleware (first in
``MIDDLEWARE``) removes every ``X-Forwarded-*``/``Forwarded`` header from requests whose peer
address is not in ``TRUSTED_PROXIES`` (addresses or networks, e.g. the proxy's Docker network).
"""

from __future__ import annotations

from ipaddress import ip_address, ip_network

from django.conf import settings

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
        self.networks = [ip_network(n, strict=False) for n in settings.TRUSTED_PROXIES]

    def trusted(self, remote_addr: str) -> bool:
        try:
            address = ip_address(remote_addr)
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    def __call__(self, request):
        if not self.trusted(request.META.get("REMOTE_ADDR", "")):
            for header in FORWARDED_HEADERS:
                request.META.pop(header, None)
        return self.get_response(request)
