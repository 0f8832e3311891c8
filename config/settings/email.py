"""Email: invitations, notices and password resets (``annotator.services.invitations``, Django's auth views).

The embedded default prints mail on the server's terminal (the console backend); a deployment names its SMTP
server with ``EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend`` and the ``EMAIL_*`` variables
(docs/settings.md).
"""

from config.env import env_bool, env_int, env_str

EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 20)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "dialogue-judgements@localhost")
# How long an invitation link and a password-reset link serve (hours)
INVITATION_MAX_AGE_HOURS = env_int("INVITATION_MAX_AGE_HOURS", 72)
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT_HOURS", 24) * 3600
# The site's address in links sent by commands (no request to take it from), e.g. manage.py members invite
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")
