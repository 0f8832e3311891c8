"""Rate limits of the API: writes per user, and the token endpoint per client address (both fail open when the
cache is down: ``config.throttling``)."""

from rest_framework.permissions import SAFE_METHODS

from config.throttling import ClientRateThrottle


class WriteRateThrottle(ClientRateThrottle):
    """Each user's (or anonymous address's) unsafe requests, at ``DEFAULT_THROTTLE_RATES["writes"]``."""

    scope = "writes"

    def get_cache_key(self, request, view) -> str:
        ident = request.user.pk if request.user and request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)


class LoginRateThrottle(ClientRateThrottle):
    """Token requests per client address, at ``DEFAULT_THROTTLE_RATES["login"]`` (lockouts come from django-axes)."""

    scope = "login"
