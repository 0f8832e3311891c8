"""Single sign-on with OpenID Connect (``mozilla-django-oidc``; annotator/views/sso_login.py). Off by default.

On with ``OIDC_ENABLED=true``, a client id and secret registered at the provider, and either its issuer (the
endpoints are then read from its discovery document) or the four endpoints. The login page then offers
"Sign in with OIDC_PROVIDER_NAME"; the provider redirects back to /oidc/callback/. docs/settings.md.
"""

from config.env import env_bool, env_int, env_str

OIDC_ENABLED = env_bool("OIDC_ENABLED", False)
OIDC_PROVIDER_NAME = env_str("OIDC_PROVIDER_NAME", "single sign-on")
OIDC_ISSUER = env_str("OIDC_ISSUER", "")
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_OP_AUTHORIZATION_ENDPOINT", "")
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_OP_TOKEN_ENDPOINT", "")
OIDC_OP_USER_ENDPOINT = env_str("OIDC_OP_USER_ENDPOINT", "")
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_OP_JWKS_ENDPOINT", "")
OIDC_RP_CLIENT_ID = env_str("OIDC_RP_CLIENT_ID", "")
OIDC_RP_CLIENT_SECRET = env_str("OIDC_RP_CLIENT_SECRET", "")
OIDC_RP_SCOPES = env_str("OIDC_RP_SCOPES", "openid email profile")
OIDC_RP_SIGN_ALGO = env_str("OIDC_RP_SIGN_ALGO", "RS256")
OIDC_GROUPS_CLAIM = env_str("OIDC_GROUPS_CLAIM", "groups")  # the claim whose values the projects' rules match
OIDC_USERNAME_CLAIM = env_str("OIDC_USERNAME_CLAIM", "preferred_username")  # a new user's username
OIDC_TIMEOUT = env_int("OIDC_TIMEOUT", 10)  # seconds for each call to the provider, all of it (config.outbound)
OIDC_AUTHENTICATE_CLASS = "annotator.views.sso_login.ProviderLogin"
OIDC_USE_NONCE = True
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"
