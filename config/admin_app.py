"""The admin app with its registrations (each app's ``admin`` module) loaded with the URLs, not at set-up.

Django's default ``AdminConfig`` imports every app's ``admin`` module (their forms, Django's auth forms, axes'
handlers) as the apps are set up: 25-30 ms of every command's start-up, ``score_run`` and ``import_dialogues``
included, for registrations only the admin's pages use. The URL configuration discovers them
(``config/urls.py``), as every web process loads it; the admin's system checks discover them before they run,
so ``manage.py check`` still checks every registration.
"""

from django.contrib import admin
from django.contrib.admin.apps import SimpleAdminConfig
from django.contrib.admin.checks import check_admin_app, check_dependencies
from django.core import checks


def check_discovered_admin(app_configs, **kwargs):
    """Django's checks of the admin's registrations, after discovering them."""
    admin.autodiscover()
    return check_admin_app(app_configs, **kwargs)


class AdminDiscoveredWithTheURLs(SimpleAdminConfig):
    """``django.contrib.admin`` without discovery at set-up (see the module's docstring)."""

    def ready(self):
        checks.register(check_dependencies, checks.Tags.admin)
        checks.register(check_discovered_admin, checks.Tags.admin)
