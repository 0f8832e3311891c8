"""The one HTTP client for what the platform sends out: ``outbound_send``.

Standard library only (``socket``, ``ssl``, ``http.client``), one request per connection:

1. **The destination** is parsed (``config.outbound.addresses.destination_parse``) and its name resolved (in a
   thread of its own, so that a resolver that hangs is cut at the deadline too). Unless the operator named the
   host (``allowed``), every address it resolves to must be public (``address_refusal``): one refused address
   refuses the request.
2. **The connection** is made to an address that was checked, never to the name again, so a name that resolves
   elsewhere the second time (DNS rebinding) changes nothing; the connected peer is compared with it once more.
   HTTPS is verified against the URL's host name (the system's CAs, ``SSL_CERT_FILE``). Proxies from the
   environment are not used (the check would judge the proxy's address, not the destination's).
3. **Redirects are not followed**: a 3xx is the answer. Webhook receivers and chat completions APIs have no
   reason to redirect, and a redirect is how a request is turned to an internal address or made to carry a
   key or a signature to another host; not following one closes both without a rule per hop.
4. **A total deadline**: before every blocking step (connect, TLS handshake, each send and each read) the
   socket's timeout is set to what is left of ``seconds``, so a receiver that trickles a byte at a time is cut
   when the time is up, not when one read waits too long.
5. **A response size cap**, read as a stream: a declared length over ``max_bytes`` is refused unread, and the
   body is read in blocks until it passes ``max_bytes`` (refused) or ends; ``max_bytes=0`` reads no body at
   all (a webhook's answer is its status). No ``Accept-Encoding``: the bytes counted are the bytes kept.
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field

from config.outbound.addresses import (
    DEFAULT_PORTS,
    REFUSED_ADDRESS,
    REFUSED_NAME,
    Address,
    Destination,
    DestinationRefused,
    HostRule,
    OutboundError,
    address_refusal,
    allowed_by,
    destination_parse,
)
from scoring.errors import N_

USER_AGENT = "dialeval/1"

BLOCK = 64 * 1024
REASON_CHARS = 60


class DeadlineExceeded(OutboundError):
    """No complete answer before the deadline."""


class ResponseTooLarge(OutboundError):
    """The answer is larger than the cap."""


class Unreachable(OutboundError):
    """The name did not resolve, no address took the connection, or the exchange broke off."""


@dataclass(frozen=True)
class Answer:
    """A complete answer: status, reason phrase, headers (names in lower case) and body (at most the cap)."""

    status: int
    reason: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @property
    def status_line(self) -> str:
        """``"500 Internal Server Error"``: what a log may keep of an answer (printable, at most 60 characters of
        reason; never the body).

        >>> Answer(500, "Internal Server Error").status_line, len(Answer(200, "x" * 5000).status_line)
        ('500 Internal Server Error', 64)
        """
        reason = "".join(c for c in self.reason if c.isprintable() and c.isascii())[:REASON_CHARS]
        return f"{self.status} {reason}".strip()


def _late(seconds: float) -> DeadlineExceeded:
    return DeadlineExceeded(N_("no complete answer within %(seconds)s s"), seconds=f"{seconds:g}")


def _left(deadline: float, seconds: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise _late(seconds)
    return left


class _DeadlineSocket:
    """A connected socket whose every send and read waits at most for what is left until the deadline."""

    def __init__(self, sock: socket.socket, deadline: float, seconds: float) -> None:
        self.sock, self.deadline, self.seconds = sock, deadline, seconds

    def arm(self) -> None:
        self.sock.settimeout(_left(self.deadline, self.seconds))

    def sendall(self, data) -> None:
        self.arm()
        self.sock.sendall(data)

    def recv_into(self, buffer) -> int:
        self.arm()
        return self.sock.recv_into(buffer)

    def makefile(self, *_args, **_kwargs) -> io.BufferedReader:
        return io.BufferedReader(_Reader(self))

    def close(self) -> None:
        """Nothing: ``http.client`` closes the connection as the answer's headers arrive, before its body is read;
        ``outbound_send`` closes the socket once it has read what it wants."""


class _Reader(io.RawIOBase):
    def __init__(self, sock: _DeadlineSocket) -> None:
        self.sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return self.sock.recv_into(buffer)


class _Connection(http.client.HTTPConnection):
    """``http.client``'s request and answer over a socket already connected (and checked) here."""

    def __init__(self, destination: Destination, sock: _DeadlineSocket) -> None:
        super().__init__(destination.host, destination.port)
        self.default_port = DEFAULT_PORTS[destination.scheme]  # the Host header names the port only when needed
        self.ready = sock

    def connect(self) -> None:
        self.sock = self.ready


def _lookup(destination: Destination, deadline: float, seconds: float) -> list[Address]:
    """The addresses ``destination``'s host resolves to (a literal address: itself), in the resolver's order."""
    try:
        return [ipaddress.ip_address(destination.host)]
    except ValueError:
        pass
    found: dict = {}

    def resolve() -> None:
        try:
            found["infos"] = socket.getaddrinfo(destination.host, destination.port, type=socket.SOCK_STREAM)
        except OSError as exc:
            found["error"] = exc

    thread = threading.Thread(target=resolve, name="outbound-lookup", daemon=True)
    thread.start()
    thread.join(_left(deadline, seconds))
    if thread.is_alive():
        raise DeadlineExceeded(
            N_("%(host)s was not resolved within %(seconds)s s"), host=destination.host, seconds=f"{seconds:g}"
        )
    if "error" in found:
        raise Unreachable(N_("%(host)s could not be resolved (%(error)s)"), host=destination.host, error=found["error"])
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in found["infos"]]
    return list(dict.fromkeys(addresses))


def _refusal(destination: Destination, addresses: list[Address]) -> DestinationRefused | None:
    for address in addresses:
        why = address_refusal(address)
        if why and str(address) == destination.host:
            return DestinationRefused(REFUSED_ADDRESS, host=destination.host, kind=why)
        if why:
            return DestinationRefused(REFUSED_NAME, host=destination.host, address=str(address), kind=why)
    return None


def _connect(destination: Destination, addresses: list[Address], deadline: float, seconds: float) -> socket.socket:
    problem: OSError | None = None
    for address in addresses:
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(_left(deadline, seconds))
            sock.connect((str(address), destination.port))
            peer = ipaddress.ip_address(str(sock.getpeername()[0]).split("%", 1)[0])
        except OSError as exc:
            sock.close()
            if time.monotonic() >= deadline:
                raise _late(seconds) from None
            problem = exc
            continue
        except BaseException:
            sock.close()
            raise
        if peer != address:  # never expected: the socket reached another address than the one checked
            sock.close()
            raise DestinationRefused(
                N_("the connection reached %(peer)s, not the address checked (%(address)s)"),
                peer=str(peer),
                address=str(address),
            )
        return sock
    raise Unreachable(
        N_("could not connect to %(host)s:%(port)s (%(error)s)"),
        host=destination.host,
        port=destination.port,
        error=problem,
    )


_tls: ssl.SSLContext | None = None


def _tls_context() -> ssl.SSLContext:
    global _tls
    if _tls is None:
        _tls = ssl.create_default_context()
    return _tls


def _read_body(response: http.client.HTTPResponse, max_bytes: int) -> bytes:
    declared = response.getheader("Content-Length")
    if declared and declared.strip().isdigit() and int(declared) > max_bytes:
        raise ResponseTooLarge(
            N_("the answer is %(size)s bytes; at most %(cap)s are read"),
            size=f"{int(declared):,}",
            cap=f"{max_bytes:,}",
        )
    chunks, size = [], 0
    while True:
        chunk = response.read(min(BLOCK, max_bytes + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise ResponseTooLarge(N_("the answer is larger than %(cap)s bytes, the most read"), cap=f"{max_bytes:,}")


def outbound_send(
    *,
    method: str,
    url: str,
    seconds: float,
    max_bytes: int,
    headers: dict[str, str] | None = None,
    body: bytes = b"",
    allowed: tuple[HostRule, ...] = (),
) -> Answer:
    """Send one request and answer its complete answer, whatever its status (a 3xx included: never followed).

    ``seconds`` bounds the whole exchange (lookup, connection, TLS, request, answer); ``max_bytes`` the answer's
    body (0: not read). ``allowed``: hosts the operator named, to which the address checks do not apply.

    Raises ``DestinationRefused`` (the URL or an address it resolves to), ``DeadlineExceeded``,
    ``ResponseTooLarge`` or ``Unreachable``, all ``OutboundError``s whose message says what happened.
    """
    deadline = time.monotonic() + seconds
    destination = destination_parse(url)
    addresses = _lookup(destination, deadline, seconds)
    if not allowed_by(destination, allowed):
        refused = _refusal(destination, addresses)
        if refused:
            raise refused
    sock = _connect(destination, addresses, deadline, seconds)
    try:
        if destination.scheme == "https":
            sock.settimeout(_left(deadline, seconds))  # the handshake as a whole (CPython's ssl keeps one deadline)
            sock = _tls_context().wrap_socket(sock, server_hostname=destination.host)
        connection = _Connection(destination, _DeadlineSocket(sock, deadline, seconds))
        sent = {"User-Agent": USER_AGENT, **(headers or {}), "Connection": "close"}
        connection.request(method, destination.target, body=body or None, headers=sent)
        response = connection.getresponse()
        content = _read_body(response, max_bytes) if max_bytes else b""
        found = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, response.reason or "", found, content)
    except TimeoutError:
        raise _late(seconds) from None
    except ssl.SSLError as exc:
        raise Unreachable(
            N_("TLS with %(host)s failed (%(error)s)"), host=destination.host, error=exc.reason or exc
        ) from None
    except (OSError, http.client.HTTPException) as exc:
        if time.monotonic() >= deadline:
            raise _late(seconds) from None
        error = f"{type(exc).__name__}: {exc}"
        raise Unreachable(
            N_("the exchange with %(host)s broke off (%(error)s)"), host=destination.host, error=error
        ) from None
    finally:
        sock.close()
