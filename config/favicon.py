"""``/favicon.ico``: browsers ask for it at the root whatever the pages link; the same file as
``static/img/favicon.ico`` (a hand-made 16 and 32 px icon: two speech bubbles), cached for a day."""

from pathlib import Path

from django.conf import settings
from django.http import HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

FAVICON = Path(settings.BASE_DIR) / "static" / "img" / "favicon.ico"


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request):
    return HttpResponse(FAVICON.read_bytes(), content_type="image/x-icon")
