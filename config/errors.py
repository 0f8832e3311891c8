"""Error pages: JSON under ``/api/`` (programs read the ``detail``), HTML everywhere else.

Django calls these for exceptions no view handled (``handler400``... in ``config.urls``): a URL
no route matches, a ``PermissionDenied`` raised outside DRF, and any unhandled exception (500).
DRF's own views already answer their errors as JSON through ``api.errors.exception_handler``.
"""

from __future__ import annotations

from django.http import JsonResponse
from django.utils.translation import gettext
from django.views import defaults

API_PREFIX = "/api/"


def _is_api(request) -> bool:
    return request.path.startswith(API_PREFIX)


def bad_request(request, exception):
    if _is_api(request):
        return JsonResponse({"detail": gettext("Bad request.")}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request, exception):
    if _is_api(request):
        return JsonResponse({"detail": str(exception) or "You do not have permission to do this."}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request, exception):
    if _is_api(request):
        return JsonResponse(
            {"detail": gettext("Not found: no endpoint answers %(path)s.") % {"path": request.path}}, status=404
        )
    return defaults.page_not_found(request, exception)


def server_error(request):
    if _is_api(request):
        return JsonResponse(
            {"detail": gettext("Server error: the request failed on our side and nothing was changed by its failure.")},
            status=500,
        )
    return defaults.server_error(request)
