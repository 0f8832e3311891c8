"""Rate limits of the API: writes per user, and the token endpoint per client address."""

from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import SimpleRateThrottle, UserRateThrottle


class WriteRateThrottle(UserRateThrottle):
    """Each user's (or anonymous address's) unsafe requests, at ``DEFAULT_THROTTLE_RATES["writes"]``."""

    scope = "writes"

    def allow_request(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)


class LoginRateThrottle(SimpleRateThrottle):
    """Token requests per client address, at ``DEFAULT_THROTTLE_RATES["login"]`` (lockouts come from django-axes)."""

    scope = "login"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
