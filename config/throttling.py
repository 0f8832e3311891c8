"""Rate limits counted in Django's cache (Redis in production), per client address, that fail open.

A limit guards against abuse; it must never be what stops an annotator's save. When the cache
cannot be reached (Redis stopped, restarting, unreachable) the request is allowed and a warning is
logged, instead of DRF's throttle raising before the view runs (every API write answered 500 while
Redis was down). The address is ``config.client_address``'s: behind the proxy, the client's own.
"""

from __future__ import annotations

import hashlib
import logging

from rest_framework.throttling import SimpleRateThrottle

from config.client_address import client_address

log = logging.getLogger(__name__)


def cache_errors() -> tuple[type[Exception], ...]:
    """What Django's Redis cache raises when Redis is down or slow. Imported when an error is being matched
    (the cache has imported redis by then): importing the redis package costs start-up a tenth of a second."""
    from redis.exceptions import RedisError

    return (RedisError, OSError)


class ClientRateThrottle(SimpleRateThrottle):
    """A rate per client address (``get_cache_key`` may count per user instead); allows when the cache is down."""

    def get_ident(self, request) -> str:
        return client_address(request)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except cache_errors() as exc:
            log.warning("rate limit %s not applied: the cache is unreachable (%s)", self.scope, exc)
            return True


class JobStartThrottle(ClientRateThrottle):
    """Jobs a lead's page or endpoint starts (a report, an export, a power analysis), per user, at
    ``JOB_START_RATE``: asked only when a job is to start, never to show a stored result or progress."""

    scope = "job_starts"

    def get_rate(self) -> str:
        from django.conf import settings

        return settings.JOB_START_RATE

    def get_cache_key(self, request, view) -> str:
        user = getattr(request, "user", None)
        ident = user.pk if user is not None and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def job_start_allowed(request):
    """A callable answering whether ``request``'s user may start a job now (counted when it answers yes)."""
    return lambda: JobStartThrottle().allow_request(request, None)


class CountedRate(ClientRateThrottle):
    """``rate`` (DRF's syntax, ``"5/hour"``) of ``scope``, counted per ``key`` (a study, a hashed email address),
    or per client address when no key is given; allows when the cache is down, as every limit here."""

    def __init__(self, scope: str, rate: str, key: str | None = None) -> None:
        self.scope, self.rate, self.key = scope, rate, key
        super().__init__()

    def get_ident(self, request) -> str:
        return self.key if self.key is not None else super().get_ident(request)


def address_key(email: str) -> str:
    """An email address as a counting key: case and spaces aside, hashed (the cache never holds addresses).

    >>> address_key(" Ada@Example.org") == address_key("ada@example.org")
    True
    """
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def rates_wait(request, limits: list[CountedRate]) -> float | None:
    """None when ``request`` is within every limit (each one counting it, in order, until one refuses); else the
    seconds until the limit that refused lets a request through again."""
    for limit in limits:
        if not limit.allow_request(request, None):
            return max(1.0, limit.wait() or 60.0)
    return None
