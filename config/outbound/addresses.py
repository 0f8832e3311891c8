"""Where the platform may send a request: URLs parsed, addresses classified, the operator's named hosts.

Pure standard library (``ipaddress``, ``urllib.parse``); no Django. ``config.outbound.client`` calls these before
every connection, and the services call ``destination_precheck`` when a lead saves a URL (a webhook, an endpoint
judge) so that an address that can never be reached is refused with a clear message at once.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import SplitResult, unquote, urlsplit

from scoring.errors import N_

DEFAULT_PORTS = {"http": 80, "https": 443}
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # a NAT64 gateway reaches the IPv4 address in the last 32 bits
LOCAL_NAMES = ("localhost", ".localhost", ".local", ".internal", ".home.arpa")  # names that never leave the network

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
REFUSED_ADDRESS = N_(
    "%(host)s is %(kind)s: the platform sends nothing to loopback, private, link-local, multicast or reserved addresses"
)
REFUSED_NAME = N_(
    "%(host)s resolves to %(address)s, %(kind)s: the platform sends nothing to loopback, private, link-local, "
    "multicast or reserved addresses"
)


class OutboundError(Exception):
    """A request that got no usable answer (refused here, unreachable, too slow, too large). The message is a
    template marked ``N_`` with its parameters (``str()`` is the English text; ``config.outbound.policy.
    outbound_error_text`` translates it), in words for the person who set the destination up."""

    def __init__(self, template: str, **params) -> None:
        self.template, self.params = template, params
        super().__init__(template % params if params else template)


class DestinationRefused(OutboundError, ValueError):
    """A URL the platform will not send to; the message says why, for the person who gave it."""


@dataclass(frozen=True)
class Destination:
    """A parsed http(s) URL: scheme, host (lower case, IDNA-encoded, without brackets or a final dot), port
    (the scheme's default filled in) and the request target (path and query)."""

    scheme: str
    host: str
    port: int
    target: str

    @property
    def origin(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def _host(parts: SplitResult) -> str:
    host = (parts.hostname or "").rstrip(".")
    try:
        return host.encode("idna").decode("ascii").lower() if host and not _literal(host) else host.lower()
    except UnicodeError:
        raise DestinationRefused(N_("%(host)s is not a host name"), host=repr(host)) from None


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def destination_parse(url: str) -> Destination:
    """The destination of ``url``, or ``DestinationRefused`` for anything but an http(s) URL with a host and
    without a user name or password in it.

    >>> destination_parse("https://API.example.org/v1/chat?x=1")
    Destination(scheme='https', host='api.example.org', port=443, target='/v1/chat?x=1')
    >>> destination_parse("http://[::1]:8080").origin
    'http://[::1]:8080'
    >>> destination_parse("https://api.openai.com@attacker.example/")
    Traceback (most recent call last):
    ...
    config.outbound.addresses.DestinationRefused: the URL carries a user name or password: give them elsewhere
    """
    url = (url or "").strip()
    if any(ord(c) < 33 or ord(c) == 127 for c in url):
        raise DestinationRefused(N_("the URL contains spaces or control characters"))
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise DestinationRefused(N_("give an http:// or https:// URL"))
    if parts.username is not None or parts.password is not None:
        raise DestinationRefused(N_("the URL carries a user name or password: give them elsewhere"))
    host = _host(parts)
    if not host:
        raise DestinationRefused(N_("the URL names no host"))
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        port = 0
    if not 0 < port < 65536:
        raise DestinationRefused(N_("the URL's port is not a number from 1 to 65535"))
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Destination(scheme, host, port, target)


def address_refusal(address: Address) -> str | None:
    """Why the platform sends nothing to ``address`` (None: a public address it may reach).

    Refused: loopback, private (RFC 1918, unique local IPv6), link-local (where cloud metadata services answer,
    169.254.169.254), multicast, unspecified, reserved and every other range IANA marks as not global (shared
    address space, documentation, benchmarking); an IPv6 address carrying an IPv4 one (mapped, 6to4, Teredo,
    NAT64) is judged by the IPv4 address it reaches.

    >>> [address_refusal(ipaddress.ip_address(a)) for a in ("93.184.215.14", "127.0.0.1", "169.254.169.254")]
    [None, 'a loopback address', 'a link-local address (where cloud metadata services answer)']
    >>> address_refusal(ipaddress.ip_address("::ffff:10.0.0.1")), address_refusal(ipaddress.ip_address("fd00:ec2::254"))
    ('a private address', 'a private address')
    """
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour or (address.teredo[1] if address.teredo else None)
        if embedded is None and address in NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return address_refusal(embedded)
    if address.is_loopback:
        return N_("a loopback address")
    if address.is_link_local:
        return N_("a link-local address (where cloud metadata services answer)")
    if address.is_multicast:
        return N_("a multicast address")
    if address.is_unspecified:
        return N_("an unspecified address")
    if address.is_private:
        return N_("a private address")
    if address.is_reserved or not address.is_global:
        return N_("a reserved address")
    return None


@dataclass(frozen=True)
class HostRule:
    """A host the operator named (``OUTBOUND_ALLOWED_HOSTS``, or the origin of an operator's URL): requests to
    it skip the address checks; ``port`` None allows every port."""

    host: str
    port: int | None = None

    def allows(self, destination: Destination) -> bool:
        return destination.host == self.host and self.port in (None, destination.port)


def host_rule(entry: str) -> HostRule:
    """``host``, ``host:port``, ``[v6]`` or ``[v6]:port`` as a rule; a URL is taken as its origin.

    >>> host_rule("hooks.lab.internal"), host_rule("10.0.0.5:8080")
    (HostRule(host='hooks.lab.internal', port=None), HostRule(host='10.0.0.5', port=8080))
    >>> host_rule("[::1]:9000")
    HostRule(host='::1', port=9000)
    >>> host_rule("https://llm.lab.example/v1")
    HostRule(host='llm.lab.example', port=443)
    """
    entry = entry.strip()
    if "://" in entry:
        destination = destination_parse(entry)
        return HostRule(destination.host, destination.port)
    parts = urlsplit(f"//{entry}")
    try:
        port = parts.port
    except ValueError:
        raise DestinationRefused(N_("%(entry)s: the port is not a number"), entry=repr(entry)) from None
    host = _host(parts)
    if not host:
        raise DestinationRefused(N_("%(entry)s names no host"), entry=repr(entry))
    return HostRule(host, port)


def allowed_by(destination: Destination, rules: tuple[HostRule, ...]) -> bool:
    return any(rule.allows(destination) for rule in rules)


def destination_precheck(url: str, *, allowed: tuple[HostRule, ...] = ()) -> Destination:
    """The checks that need no name lookup, for a URL a person saves: the URL's form, a literal address of a
    refused kind, and names that never leave the network (``localhost``, ``*.internal``, ...). The full check
    (every address a name resolves to) is made again before each connection (``config.outbound.client``).

    >>> destination_precheck("http://127.0.0.1:2019/stop")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    config.outbound.addresses.DestinationRefused: 127.0.0.1 is a loopback address: the platform sends nothing to...
    >>> destination_precheck("http://127.0.0.1:2019/stop", allowed=(host_rule("127.0.0.1"),)).port
    2019
    """
    destination = destination_parse(url)
    if allowed_by(destination, allowed):
        return destination
    literal = _literal(destination.host)
    why = address_refusal(literal) if literal is not None else None
    if literal is None and (destination.host == LOCAL_NAMES[0] or destination.host.endswith(LOCAL_NAMES[1:])):
        why = N_("a name on the local network")
    if why:
        raise DestinationRefused(REFUSED_ADDRESS, host=destination.host, kind=why)
    return destination


def url_under(url: str, prefix: str) -> bool:
    """Whether ``url`` is ``prefix`` or below it: the same scheme, host and port, and a path that is the prefix's
    or continues it after a ``/`` (never a longer host name or a longer path segment). A URL whose path has
    ``.`` or ``..`` segments (plain or percent-encoded) is under nothing.

    >>> url_under("https://api.openai.com/v1/chat/completions", "https://api.openai.com")
    True
    >>> url_under("https://api.openai.com.attacker.example/v1", "https://api.openai.com")
    False
    >>> url_under("https://api.openai.com:8443/v1", "https://api.openai.com"), url_under("http://api.openai.com/v1", "https://api.openai.com")
    (False, False)
    >>> [url_under(f"https://gw.example/{path}", "https://gw.example/team-a") for path in ("team-a/v1", "team-ab/v1")]
    [True, False]
    >>> url_under("https://gw.example/team-a/../team-b/v1", "https://gw.example/team-a")
    False
    """
    try:
        asked, named = destination_parse(url), destination_parse(prefix)
    except DestinationRefused:
        return False
    if (asked.scheme, asked.host, asked.port) != (named.scheme, named.host, named.port):
        return False
    path = urlsplit(url).path or "/"
    if any(unquote(segment) in (".", "..") for segment in path.split("/")):
        return False
    base = (urlsplit(prefix).path or "/").rstrip("/")
    return not base or path == base or path.startswith(base + "/")
