"""One OpenAI-compatible chat completions request, with retries and backoff; no Django, no database.

``chat_complete`` posts ``{"model", "messages", "temperature", "max_tokens"}`` to ``URL/chat/completions``
through the platform's one outgoing client (``config.outbound.client``: no internal address unless the
operator named the host, redirects not followed, ``timeout`` for the whole exchange, an answer of at most
``max_bytes``) and answers the first choice's text with the usage the endpoint counted. Rate limits (429),
server errors (5xx), connection failures and answers cut at the deadline are retried with exponential backoff
(a ``Retry-After`` the endpoint sends is honoured, up to ``MAX_WAIT`` seconds); any other answer (a redirect
included), a refused destination and a too large answer are final. ``RateLimiter`` spaces the requests of
several threads to at most a number per minute.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass

from config.outbound.addresses import DestinationRefused, HostRule, OutboundError
from config.outbound.client import ResponseTooLarge, outbound_send

MAX_WAIT = 30.0  # seconds: the longest a retry waits
RETRIED_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class EndpointError(RuntimeError):
    """The endpoint gave no usable answer; the message says why."""


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int


class RateLimiter:
    """At most ``per_minute`` request starts per minute, across threads (none when ``per_minute`` is 0)."""

    def __init__(self, per_minute: int, clock=time.monotonic, sleep=time.sleep):
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self.next_at = 0.0
        self.lock = threading.Lock()
        self.clock, self.sleep = clock, sleep

    def wait(self) -> None:
        if not self.interval:
            return
        with self.lock:
            now = self.clock()
            start = max(now, self.next_at)
            self.next_at = start + self.interval
        if start > now:
            self.sleep(start - now)


def completions_url(base: str) -> str:
    """``https://host/v1`` -> ``https://host/v1/chat/completions`` (a URL already ending so is kept)."""
    base = base.rstrip("/")
    return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


def _answer(raw: bytes) -> Completion:
    try:
        body = json.loads(raw)
        text = body["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise EndpointError(f"not a chat completion ({len(raw):,} bytes without choices[0].message.content)") from exc
    if not isinstance(text, str):
        raise EndpointError("the completion's content is not text")
    usage = body.get("usage") or {}
    return Completion(text, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))


def chat_complete(
    *,
    url: str,
    model: str,
    messages: list[dict],
    api_key: str = "",
    temperature: float = 0.0,
    max_tokens: int = 16,
    timeout: float = 60.0,
    max_retries: int = 3,
    backoff: float = 0.5,
    limiter: RateLimiter | None = None,
    max_bytes: int = 1024 * 1024,
    allowed: tuple[HostRule, ...] = (),
    sleep=time.sleep,
) -> Completion:
    """The endpoint's answer to ``messages``; ``EndpointError`` once the retries are spent or on a final error.
    ``timeout`` bounds each attempt as a whole; ``allowed``: hosts the operator named (``config.outbound``)."""
    body = json.dumps({"model": model, "messages": messages, "temperature": temperature, "max_tokens": max_tokens})
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    problem = ""
    for attempt in range(max_retries + 1):
        if limiter is not None:
            limiter.wait()
        wait = backoff * (2**attempt)
        try:
            answer = outbound_send(
                method="POST",
                url=completions_url(url),
                headers=headers,
                body=body.encode(),
                seconds=timeout,
                max_bytes=max_bytes,
                allowed=allowed,
            )
        except (DestinationRefused, ResponseTooLarge) as exc:
            raise EndpointError(str(exc)) from None
        except OutboundError as exc:  # unreachable, or cut at the deadline: tried again
            problem = f"no answer ({exc})"
        else:
            if 200 <= answer.status < 300:
                return _answer(answer.body)
            problem = f"HTTP {answer.status_line}"
            if 300 <= answer.status < 400:
                raise EndpointError(f"{problem} (redirects are not followed: give the URL the endpoint answers at)")
            if answer.status not in RETRIED_STATUS:
                raise EndpointError(problem)
            retry_after = answer.headers.get("retry-after", "")
            if retry_after.replace(".", "", 1).isdigit():
                wait = max(wait, float(retry_after))
        if attempt < max_retries:
            sleep(min(wait, MAX_WAIT))
    raise EndpointError(f"{problem} after {max_retries + 1} attempts")
