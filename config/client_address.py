"""The client's address: the one place the login lockouts, the API throttles and the study sign-up limit ask.

Behind the reverse proxy every request's peer (``REMOTE_ADDR``) is the proxy, so counting by it would
put every user in one bucket: ten wrong passwords from anyone would lock everyone out. A peer in
``TRUSTED_PROXIES`` (the same list ``config.proxy`` believes forwarded headers from) has put the
address it saw at the right end of ``X-Forwarded-For``; walking that header from the right past the
trusted proxies gives the first address no trusted proxy vouches for - the client. Anything further
left was written by the client and is never believed; from an untrusted peer the header is ignored.
"""

from __future__ import annotations

from functools import lru_cache
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network

from django.conf import settings


@lru_cache(maxsize=8)
def _networks(trusted: tuple[str, ...]) -> tuple[IPv4Network | IPv6Network, ...]:
    return tuple(ip_network(entry, strict=False) for entry in trusted)


def is_trusted_proxy(address: str) -> bool:
    """Whether ``address`` is in ``TRUSTED_PROXIES`` (addresses or networks); False for anything unparseable."""
    try:
        parsed = ip_address(address.strip())
    except ValueError:
        return False
    return any(parsed in network for network in _networks(tuple(settings.TRUSTED_PROXIES)))


def client_address(request) -> str:
    """The address of the client that sent ``request`` (a Django request, or DRF's wrapping one).

    >>> from django.test import RequestFactory
    >>> client_address(RequestFactory().get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7"))
    '203.0.113.7'
    >>> client_address(RequestFactory().get("/", REMOTE_ADDR="198.51.100.1", HTTP_X_FORWARDED_FOR="1.2.3.4"))
    '198.51.100.1'
    """
    meta = request.META
    seen = meta.get("REMOTE_ADDR", "")
    if not is_trusted_proxy(seen):
        return seen
    for hop in reversed(meta.get("HTTP_X_FORWARDED_FOR", "").split(",")):
        hop = hop.strip()
        try:
            ip_address(hop)
        except ValueError:
            return seen  # not an address: the last hop a trusted proxy vouched for
        if not is_trusted_proxy(hop):
            return hop
        seen = hop
    return seen
