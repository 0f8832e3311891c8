"""The interface language of a request (issue #17).

Order: the signed-in user's own choice (account settings, copied into the session at login and
whenever they change it, so no request pays a query), else the language picker's cookie (people
not signed in), else the browser's ``Accept-Language`` (Django's ``LocaleMiddleware``), else English.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.utils import translation

SESSION_KEY = "interface_language"


def supported_language(code: str | None) -> str:
    """``code`` when it is one of ``LANGUAGES``, else ``""`` (follow the browser)."""
    return code if code in {c for c, _name in settings.LANGUAGES} else ""


class UserLanguageMiddleware:
    """After ``LocaleMiddleware`` and the authentication middleware: a signed-in user's stored choice wins."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = getattr(request, "session", None)
        chosen = supported_language(session.get(SESSION_KEY)) if session is not None else ""
        if chosen and request.user.is_authenticated:
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen
        return self.get_response(request)


@receiver(user_logged_in, dispatch_uid="interface-language-at-login")
def _language_at_login(sender, request, user, **kwargs) -> None:
    """Signing in brings the user's stored language into the session (a side effect, nothing else)."""
    if request is None or not hasattr(request, "session"):
        return
    from annotator.services.accounts import account_language

    chosen = account_language(user=user)
    if chosen:
        request.session[SESSION_KEY] = chosen
    else:
        request.session.pop(SESSION_KEY, None)
