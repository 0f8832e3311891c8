"""Settings shared by every environment; values that differ come from config.env."""

from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF

from config.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent

SECRET_KEY = env_str("SECRET_KEY", "insecure-local-development-key-change-me")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
# peers whose X-Forwarded-* headers are believed (config.proxy): a reverse proxy on this machine by default
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", ["127.0.0.1", "::1"])

INSTALLED_APPS = [
    "django.contrib.admin",
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
    "scoring.app",
]

MIDDLEWARE = [
    "config.proxy.TrustedProxyHeaders",  # before anything reads the scheme
    "django.middleware.security.SecurityMiddleware",
    "config.limits.UploadLimitMiddleware",
    "csp.middleware.CSPMiddleware",
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
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=60,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # One writer at a time: wait for the lock instead of failing at once.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20}
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out account or address before the password
    "django.contrib.auth.backends.ModelBackend",
]

# Failed logins (page and API token), tracked per account and per client address by django-axes: after
# LOGIN_FAILURE_LIMIT failures in a row either is locked for LOGIN_LOCKOUT_MINUTES, even with the right
# password. Admins lift a lockout by deleting its "access attempt" in the admin (or manage.py axes_reset).
AXES_VERBOSE = False  # no banner on every process start (commands keep their stderr clean)
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 30))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one reaching the limit locks
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the lockout lasts the configured time, not longer
AXES_LOCKOUT_CALLABLE = "config.limits.lockout_response"

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

# Uploads and archives (see config.limits and scoring.files.ArchiveLimits).
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_MB", 200) * 1024 * 1024  # a larger request is refused (413) unread
ARCHIVE_MAX_BYTES = env_int("ARCHIVE_MAX_MB", 1024) * 1024 * 1024  # total uncompressed size of a zip's members
ARCHIVE_MAX_RATIO = float(env_str("ARCHIVE_MAX_RATIO", "100"))  # compression ratio of a member over 1 MiB
ARCHIVE_MAX_MEMBERS = env_int("ARCHIVE_MAX_MEMBERS", 10000)

# Content-Security-Policy (django-csp): scripts, styles and everything else only from this site; pages wire
# their behaviour through data-* attributes and json_script, never inline scripts or handlers.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
SECURE_REFERRER_POLICY = "same-origin"

# Throttles use the cache: one Redis shared by every web process in production (CACHE_URL), else per process.
CACHE_URL = env_str("CACHE_URL", "")
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
    if CACHE_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Celery: with no broker configured, tasks run in-process so one person needs no server.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", env_str("REDIS_URL", "")) or None
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", CELERY_BROKER_URL or "") or None
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL is None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# A task taken by a worker that dies (SIGKILL, lost machine) goes back to the queue after the visibility
# timeout: it must exceed the longest task and countdown (the hard time limits below).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 7200),
}
# Three queues, each served by its own workers (docker-compose: worker-interactive, worker-heavy,
# worker-exports; scale each with --scale): statistics recomputations are never stuck behind an
# import or a significance test.
TASK_QUEUES = ("interactive", "heavy", "exports")
CELERY_TASK_DEFAULT_QUEUE = "interactive"
CELERY_TASK_ROUTES = {
    "scoring.app.tasks.recompute_statistics": {"queue": "interactive"},
    "scoring.app.tasks.score_uploaded_run": {"queue": "heavy"},
    "scoring.app.tasks.estimate_model_reliability": {"queue": "heavy"},
    "scoring.app.tasks.refresh_run_comparisons": {"queue": "heavy"},
    "annotator.tasks.*": {"queue": "heavy"},
    "*.export_*": {"queue": "exports"},
}
# Hard limits (a stuck task is killed and retried elsewhere); the soft limit comes a minute earlier.
TASK_TIME_LIMITS = {
    "interactive": env_int("TASK_TIME_LIMIT_INTERACTIVE", 900),
    "heavy": env_int("TASK_TIME_LIMIT_HEAVY", 3600),
    "exports": env_int("TASK_TIME_LIMIT_EXPORTS", 3600),
}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 2,
    # fail fast when Redis is down: a submission must not wait for the result store
    "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2},
}
WORKER_NICENESS = env_int("WORKER_NICENESS", 10)  # 0-19; see config.celery.lower_cpu_priority
STATISTICS_DEBOUNCE_SECONDS = float(env_str("STATISTICS_DEBOUNCE_SECONDS", "3"))
STATISTICS_DUTY_FACTOR = float(env_str("STATISTICS_DUTY_FACTOR", "10"))
# the latent-truth models' estimate after a recomputation waits at least this (a burst of submissions, or a busy
# hour, costs one estimate: they take tens of seconds on a large project and annotators' reliability moves slowly)
MODEL_ESTIMATE_DELAY_SECONDS = float(env_str("MODEL_ESTIMATE_DELAY_SECONDS", "120"))
# a pending recomputation not started this long after it was due is sent again (its worker died)
STATISTICS_TAKEOVER_GRACE_SECONDS = float(env_str("STATISTICS_TAKEOVER_GRACE_SECONDS", "60"))
COMPARISON_TRIALS = int(env_str("COMPARISON_TRIALS", "2000"))
RUN_SWEEP_SECONDS = env_int("RUN_SWEEP_SECONDS", 60)  # how often beat re-sends runs that never reached the workers
RUN_REQUEUE_AFTER_SECONDS = env_int("RUN_REQUEUE_AFTER_SECONDS", 3600)  # ...or were sent this long ago, still pending
CELERY_BEAT_SCHEDULE = {
    "requeue-unqueued-runs": {"task": "scoring.app.tasks.requeue_unqueued_runs", "schedule": RUN_SWEEP_SECONDS},
}
API_TOKEN_LIFETIME_HOURS = env_int("API_TOKEN_LIFETIME_HOURS", 0)  # 0: tokens last until revoked
DEMO_ALLOWED = True  # manage.py demo: accounts with published passwords; never in production

REST_FRAMEWORK = {
    # the token first: a missing, revoked or expired token answers 401 with WWW-Authenticate: Token
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": [],
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["api.throttles.WriteRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "writes": env_str("API_WRITE_RATE", "300/minute"),  # per user, unsafe methods only
        "login": env_str("API_LOGIN_RATE", "20/minute"),  # per client address, the token endpoint
    },
    # Proxies in front of the app that append to X-Forwarded-For; 0: the client address is REMOTE_ADDR.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0),
}
# Crowdsourced studies: new participants a client address may create (DRF's rate syntax, per s/m/h/d).
STUDY_PARTICIPANTS_RATE = env_str("STUDY_PARTICIPANTS_RATE", "20/hour")

SPECTACULAR_SETTINGS = {
    "TITLE": "Dialogue evaluation annotation API",
    "DESCRIPTION": "Projects, dialogues, assignments, judgements, gold data and run scores.",
    "VERSION": "0.1.0",
    "SWAGGER_UI_DIST": "SIDECAR",  # served from static files: the docs work offline
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "format": "int64"}},  # annotator.converters
    "ENUM_NAME_OVERRIDES": {
        "AssignmentStatusEnum": "annotator.models.AssignmentStatus",
        "RunStatusEnum": "scoring.app.models.RunStatus",
        "QualityItemKindEnum": "annotator.models.QualityItemKind",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
