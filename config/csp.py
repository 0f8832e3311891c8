"""django-csp's middleware with the policy built once, for the responses that use the settings' policy as it is.

``csp.middleware.CSPMiddleware`` builds the Content-Security-Policy header from the settings on every
response, which cost about as much as reading an autosave's body. A response that brings no policy of
its own (django-csp's decorators) for a request that used no nonce gets exactly the header the library
would build; it is built once and again whenever a ``CONTENT_SECURITY_POLICY*`` setting changes. Any
other response goes through the library's own code. The conditions of when the header is set (not
already set, not exempt, not an excluded path prefix, the debug pages) are the library's.
"""

from __future__ import annotations

import http.client
from functools import cache

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as LibraryCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

# a response's own policy, set by django-csp's decorators
OWN_POLICY = ("_csp_config", "_csp_update", "_csp_replace", "_csp_config_ro", "_csp_update_ro", "_csp_replace_ro")


class CSPMiddleware(LibraryCSPMiddleware):
    def process_response(self, request, response):
        if getattr(request, "_csp_nonce", None) is not None or any(
            getattr(response, name, None) is not None for name in OWN_POLICY
        ):
            return super().process_response(request, response)
        if response.status_code in (http.client.INTERNAL_SERVER_ERROR, http.client.NOT_FOUND) and settings.DEBUG:
            return response
        for header, policy, exempt, prefixes in _settings_policies():
            if (
                policy
                and header not in response
                and getattr(response, exempt, False) is False
                and not request.path_info.startswith(prefixes)
            ):
                response[header] = policy
        # as the library: a nonce asked for after the header was written is an error, not a silent gap
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response


@cache
def _settings_policies() -> tuple[tuple[str, str, str, tuple[str, ...]], ...]:
    """(header, policy, the response's exemption attribute, excluded path prefixes) for the enforced and the
    report-only policy, from the settings."""
    out = []
    for header, setting, exempt, report_only in (
        (HEADER, "CONTENT_SECURITY_POLICY", "_csp_exempt", False),
        (HEADER_REPORT_ONLY, "CONTENT_SECURITY_POLICY_REPORT_ONLY", "_csp_exempt_ro", True),
    ):
        policy = getattr(settings, setting, None) or {}
        prefixes = tuple(policy.get("EXCLUDE_URL_PREFIXES", None) or ())
        out.append((header, build_policy(report_only=report_only), exempt, prefixes))
    return tuple(out)


@receiver(setting_changed, dispatch_uid="csp-policy-rebuilt")
def _policy_setting_changed(*, setting: str, **_kwargs) -> None:
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _settings_policies.cache_clear()
