"""The operator's say over outgoing requests, read from the settings: the hosts they named and the size cap.

``OUTBOUND_ALLOWED_HOSTS`` (``host``, ``host:port``, ``[v6]:port``) lets requests reach a host whose addresses
are internal (a webhook receiver or a model server on the lab's network); nothing a lead types can. Each caller
adds the URLs the operator set for its own purpose (the single sign-on provider's endpoints, the endpoint
judges' key URLs), never another caller's.
"""

from __future__ import annotations

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext

from config.outbound.addresses import DestinationRefused, HostRule, OutboundError, host_rule


def allowed_hosts(*operator_urls: str) -> tuple[HostRule, ...]:
    """``OUTBOUND_ALLOWED_HOSTS`` as rules, with the origin (scheme's host and port) of each of ``operator_urls``."""
    rules = []
    for entry in [*settings.OUTBOUND_ALLOWED_HOSTS, *(u for u in operator_urls if u)]:
        try:
            rules.append(host_rule(entry))
        except DestinationRefused as exc:
            raise ImproperlyConfigured(f"OUTBOUND_ALLOWED_HOSTS or an operator's URL: {exc}") from None
    return tuple(rules)


def max_response_bytes() -> int:
    """The largest answer body read from anywhere (``OUTBOUND_MAX_RESPONSE_KB``)."""
    return settings.OUTBOUND_MAX_RESPONSE_KB * 1024


def outbound_error_text(error: OutboundError) -> str:
    """The error's message in the reader's language (its English text when the translation does not fit)."""
    params = {name: gettext(value) if name == "kind" else value for name, value in error.params.items()}
    try:
        return gettext(error.template) % params if params else gettext(error.template)
    except (KeyError, TypeError, ValueError):
        return str(error)


@checks.register(checks.Tags.security)
def outbound_settings_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """``manage.py check`` (and every command that runs the checks: ``migrate``, ``runserver``): the hosts and URLs
    the operator named can be read, so that a typo is told at deployment instead of failing every delivery."""
    problems = []
    named = [
        *(("OUTBOUND_ALLOWED_HOSTS", entry) for entry in settings.OUTBOUND_ALLOWED_HOSTS),
        *(("JUDGE_ENDPOINT_KEY_URLS", url) for url in settings.JUDGE_ENDPOINT_KEY_URLS),
    ]
    for setting, entry in named:
        try:
            host_rule(entry)
        except DestinationRefused as exc:
            problems.append(checks.Error(f"{setting}: {entry!r}: {exc}", id="outbound.E001"))
    return problems
