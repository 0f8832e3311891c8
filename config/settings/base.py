"""Settings shared by every environment; values that differ come from config.env.

The settings of one concern live beside this module: ``celery``, ``limits`` and ``security``.
"""

from pathlib import Path

import dj_database_url

from config.deferred_imports import defer_all
from config.env import env_bool, env_list, env_str

# Settings by concern, each in its own module; the environment modules (local, test, production) import this
# one and override what differs. Star imports: these modules hold settings and nothing else.
from .celery import *  # noqa: F403 - background work: broker, queues, routes, beat, time limits
from .email import *  # noqa: F403 - mail: invitations, notices, password resets (EMAIL_*)
from .limits import *  # noqa: F403 - upload and archive sizes, login lockouts, API throttles, study sign-ups
from .security import *  # noqa: F403 - proxies, Content-Security-Policy, referrer policy, API token lifetime
from .sso import *  # noqa: F403 - single sign-on with OpenID Connect (off unless OIDC_ENABLED)

defer_all()  # libraries DRF imports "in case" (requests, yaml): loaded on first use (config.deferred_imports)

BASE_DIR = Path(__file__).resolve().parent.parent.parent

SECRET_KEY = env_str("SECRET_KEY", "insecure-local-development-key-change-me")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])

INSTALLED_APPS = [
    "config.admin_app.AdminDiscoveredWithTheURLs",  # django.contrib.admin, discovered with the URLs
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "annotator",
    "api",
    "evaluation",
]

MIDDLEWARE = [
    "config.proxy.TrustedProxyHeaders",  # before anything reads the scheme
    "django.middleware.security.SecurityMiddleware",
    "config.api_no_store.ApiNoStore",  # Cache-Control: no-store on every API answer
    "config.limits.UploadLimitMiddleware",
    "config.csp.CSPMiddleware",  # django-csp's, with the settings' policy built once
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",  # the language: the session/cookie choice, else Accept-Language
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "annotator.language.UserLanguageMiddleware",  # ...unless the signed-in user chose one (their account settings)
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a refused login into the lockout answer
]
# Not run for API requests with a token (config.handlers: they serve browser sessions and logins only)
TOKEN_API_SKIPPED_MIDDLEWARE = [
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "annotator.language.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "annotator.context_processors.statuses",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=60,
        conn_health_checks=True,  # a connection the database dropped (a restart) is replaced, not a 500
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # One writer at a time: wait for the lock instead of failing at once. A transaction takes the write lock
    # when it begins (IMMEDIATE): one that read first and then wrote failed at once ("database is locked", no
    # waiting) when another connection had written meanwhile (the live statistics' rebuild on the worker lost
    # that way to a request, and the dashboard waited for the next ask: live_rebuild).
    # Write-ahead log: pages keep reading while an import on the worker writes.
    # The threads of one process queue for the write lock in turn rather than each polling it (config/sqlite).
    DATABASES["default"]["ENGINE"] = "config.sqlite"
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL;",
        "pool": True,  # a closed connection is kept for the next thread (config/sqlite)
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out account or address before the password
    "django.contrib.auth.backends.ModelBackend",
]
if OIDC_ENABLED:  # noqa: F405
    AUTHENTICATION_BACKENDS.append("annotator.views.sso_login.ProviderBackend")


AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # not a check: Django tells it about every saved password change, and it revokes the user's API tokens
    {"NAME": "annotator.services.accounts.RevokeTokensOnPasswordChange"},
]

# The interface's languages (issue #17): the choice of the user (account settings, else the language picker's
# cookie), else the browser's Accept-Language, else English. Catalogues in locale/ (compiled .mo committed).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ja", "日本語"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))
MEDIA_URL = "media/"


# The cache: one Redis shared by every web process and worker in production (CACHE_URL), else a folder beside the
# embedded broker's, which the server and its worker share. Throttles count in it, a running import's progress on
# SQLite is published in it, judge reports are kept in it; sessions and lockouts are in the database. The
# throttles let requests through when Redis is down (config.throttling), after at most the timeouts below.
CACHE_URL = env_str("CACHE_URL", "")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": CACHE_URL,
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
    if CACHE_URL
    else {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(embedded_broker_folder() / "cache"),  # noqa: F405 (config.settings.celery)
    }
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

DEMO_ALLOWED = True  # manage.py demo: accounts with published passwords; never in production

REST_FRAMEWORK = {
    # the token first: a missing, revoked or expired token answers 401 with WWW-Authenticate: Token
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.ContentNegotiation",  # DRF's, the usual case first
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "api.schema.ErrorsDocumented",  # every operation lists its error answers
    "DEFAULT_FILTER_BACKENDS": [],
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.JSONParser",  # DRF's, with too deep a nesting a 400
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttles.WriteRateThrottle"],
    "DEFAULT_THROTTLE_RATES": API_THROTTLE_RATES,  # noqa: F405 (config.settings.limits)
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Dialogue evaluation annotation API",
    "DESCRIPTION": "Projects, dialogues, assignments, judgements, gold data and run scores.",
    "VERSION": "0.2.0",
    "SWAGGER_UI_DIST": "SIDECAR",  # served from static files: the docs work offline
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "DEFAULT_GENERATOR_CLASS": "api.schema.DocumentedSchemaGenerator",  # applies api.schema_docs.documented
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "format": "int64"}},  # annotator.converters
    "ENUM_NAME_OVERRIDES": {
        "AssignmentStatusEnum": "annotator.models.AssignmentStatus",
        "RunStatusEnum": "evaluation.models.RunStatus",
        "QualityItemKindEnum": "annotator.models.QualityItemKind",
        # three different "format" choices (imports, judges' labels, exports): the first two named here
        "ImportFormatEnum": "annotator.importers.FORMATS",
        "JudgeLabelsFormatEnum": "annotator.judges.services.labels.JUDGE_FORMATS",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# Endpoint judges (docs/judges.md): the chat completions key, sent only to URLs under one of the allowed prefixes.
JUDGE_ENDPOINT_API_KEY = env_str("JUDGE_ENDPOINT_API_KEY", "")
JUDGE_ENDPOINT_KEY_URLS = env_list("JUDGE_ENDPOINT_KEY_URLS", [])
