"""Error pages: JSON under ``/api/`` (programs read the ``detail``), HTML everywhere else.

Django calls these for exceptions no view handled (``handler400``... in ``config.urls``): a URL
no route matches, a ``PermissionDenied`` raised outside DRF, and any unhandled exception (500) - except the
database being unreachable (a restart, a failover), which answers 503 with ``Retry-After``: the request changed
nothing and the same request will succeed in a moment (the annotation page sends its answers again).
DRF's own views already answer their errors as JSON through ``api.errors.exception_handler``.
"""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template import loader
from django.utils.translation import gettext
from django.views import defaults

API_PREFIX = "/api/"
RETRY_AFTER_SECONDS = 5


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
    if isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):  # Django calls this inside its except
        return database_unavailable(request)
    if _is_api(request):
        return JsonResponse(
            {"detail": gettext("Server error: the request failed on our side and nothing was changed by its failure.")},
            status=500,
        )
    return defaults.server_error(request)


def database_unavailable(request):
    """503 with ``Retry-After``: the database could not be reached, so the request changed nothing."""
    if _is_api(request):
        response = JsonResponse(
            {
                "detail": gettext(
                    "The database cannot be reached right now; nothing was changed. Send the request again "
                    "in a few seconds."
                ),
                "code": "database_unavailable",
            },
            status=503,
        )
    else:
        response = HttpResponse(loader.render_to_string("503.html", request=request), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
