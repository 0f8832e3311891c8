"""Webhook signatures: ``X-Dialeval-Signature: t=TIMESTAMP,v1=HEX``, HMAC-SHA256 over ``TIMESTAMP.BODY``.

The sender (``annotator.services.webhooks``) signs each attempt with the webhook's secret and the time of the
attempt; a receiver recomputes the HMAC over the timestamp, a dot and the raw body it received, compares in
constant time, and refuses timestamps outside its replay window (a captured request sent again later).
``signature_verify`` is the check a receiver runs (docs/webhooks.md gives it as a snippet).

>>> header = signature_header("s3cret", b'{"a":1}', timestamp=1700000000)
>>> header
't=1700000000,v1=1698a50bc74d1ff1db85c4e0a5297c2ad9fdba245d5737cdb789e4cc6e098940'
>>> signature_verify("s3cret", header, b'{"a":1}', now=1700000100)
True
>>> signature_verify("s3cret", header, b'{"a":2}', now=1700000100), signature_verify("s3cret", header, b'{"a":1}')
(False, False)
"""

from __future__ import annotations

import hashlib
import hmac
import time

HEADER = "X-Dialeval-Signature"
REPLAY_WINDOW_SECONDS = 300


def signature_of(secret: str, body: bytes, timestamp: int) -> str:
    """The hex HMAC-SHA256 of ``TIMESTAMP.BODY`` with ``secret``."""
    return hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()


def signature_header(secret: str, body: bytes, *, timestamp: int | None = None) -> str:
    timestamp = int(time.time()) if timestamp is None else timestamp
    return f"t={timestamp},v1={signature_of(secret, body, timestamp)}"


def signature_verify(
    secret: str, header: str, body: bytes, *, tolerance: int = REPLAY_WINDOW_SECONDS, now: float | None = None
) -> bool:
    """True if ``header`` signs ``body`` with ``secret`` and its timestamp is within ``tolerance`` seconds."""
    try:
        parts = dict(part.split("=", 1) for part in header.split(","))
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    now = time.time() if now is None else now
    if abs(now - timestamp) > tolerance:
        return False
    return hmac.compare_digest(signature_of(secret, body, timestamp), parts.get("v1", ""))
