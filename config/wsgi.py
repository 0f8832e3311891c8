"""WSGI entry point (gunicorn config.wsgi)."""

import os

import django
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")  # DEBUG off unless asked by name
django.setup(set_prefix=False)  # as django.core.wsgi.get_wsgi_application
from config.handlers import Handler  # noqa: E402  (after set-up: it reads the settings)

application = Handler()
# Import every view (and the scoring library behind the dashboards) before the first request,
# so that a freshly started worker does not keep its first requests waiting for imports.
_ = get_resolver().url_patterns
