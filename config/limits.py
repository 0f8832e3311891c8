"""Refusals at the edge: requests larger than the upload limit, and logins of a locked-out account or address.

Both answer in the request's language: JSON for the API (``/api/``), a page for the browser.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):,.0f} MB"


class UploadLimitMiddleware:
    """413 for a request whose declared body is larger than ``UPLOAD_MAX_BYTES``, before any of it is read."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.UPLOAD_MAX_BYTES
        if length > limit:
            # before LocaleMiddleware: the language is read here from the request (cookie, Accept-Language)
            with translation.override(translation.get_language_from_request(request)):
                message = gettext(
                    "The upload is %(size)s; uploads are limited to %(limit)s (UPLOAD_MAX_MB). Split the "
                    "collection, or ask the administrator to raise the limit."
                ) % {"size": _megabytes(length), "limit": _megabytes(limit)}
            if _is_api(request):
                return JsonResponse({"detail": message}, status=413)
            return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


def lockout_message() -> str:
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    return gettext(
        "Too many failed logins: after %(limit)s wrong passwords this account (or your address) is locked for "
        "%(minutes)s minutes, and no password is accepted until then. Try again later, or ask an administrator "
        "to lift the lock."
    ) % {"limit": settings.AXES_FAILURE_LIMIT, "minutes": minutes}


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """django-axes' answer to a login while locked out (``AXES_LOCKOUT_CALLABLE``), status 429."""
    if _is_api(request):
        return JsonResponse({"detail": lockout_message(), "locked_out": True}, status=429)
    return render(request, "registration/locked_out.html", {"message": lockout_message()}, status=429)
