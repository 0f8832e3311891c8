"""WSGI entry point (gunicorn config.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
application = get_wsgi_application()
# Import every view (and the scoring library behind the dashboards) before the first request,
# so that a freshly started worker does not keep its first requests waiting for imports.
_ = get_resolver().url_patterns
