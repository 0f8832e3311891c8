"""Team deployment: secrets have no default, HTTPS everywhere, hashed static files.

``HTTPS_ONLY=false`` serves these settings over plain HTTP for a check on this machine (no redirect to
HTTPS, cookies without ``Secure``, no HSTS); it is refused unless every allowed host is a loopback name.
"""

from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_str

from .base import *  # noqa: F403

# The default of manage.py, gunicorn (config.wsgi) and Celery (config.celery) when DJANGO_SETTINGS_MODULE is unset.
try:
    SECRET_KEY = env_str("SECRET_KEY")
except ImproperlyConfigured:
    raise ImproperlyConfigured(
        "Set the environment variable SECRET_KEY: these are the production settings, which manage.py, gunicorn "
        "and Celery use unless DJANGO_SETTINGS_MODULE names others. On your own machine, name the local settings "
        "(DJANGO_SETTINGS_MODULE=config.settings.local, as ./scripts/serve.sh does)."
    ) from None
DEBUG = False

HTTPS_ONLY = env_bool("HTTPS_ONLY", True)
LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "[::1]"}
if not HTTPS_ONLY and not set(ALLOWED_HOSTS) <= LOOPBACK_HOSTS:  # noqa: F405
    raise ImproperlyConfigured(
        f"HTTPS_ONLY=false is for a check on this machine: ALLOWED_HOSTS may then name only {sorted(LOOPBACK_HOSTS)}."
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS_ONLY)
SESSION_COOKIE_SECURE = HTTPS_ONLY
CSRF_COOKIE_SECURE = HTTPS_ONLY
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000) if HTTPS_ONLY else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

DEMO_ALLOWED = False  # manage.py demo would create accounts with the README's published passwords

# JSON only: no browsable API pages (forms, the schema of every endpoint) in production
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
}
