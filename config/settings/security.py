"""Security shared by every environment: which proxies are believed, the Content-Security-Policy, the referrer
policy, the API tokens' lifetime and where outgoing requests may go. HTTPS-only cookies, HSTS and the redirect to
HTTPS are production's (``config.settings.production``): local and test serve plain HTTP.
"""

from csp.constants import NONE, SELF

from config.env import env_int, env_list

# peers whose X-Forwarded-* headers are believed (config.proxy), and whose X-Forwarded-For names the client
# (config.client_address: the address the lockouts and rate limits count): a proxy on this machine by default
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", ["127.0.0.1", "::1"])

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

API_TOKEN_LIFETIME_HOURS = env_int("API_TOKEN_LIFETIME_HOURS", 0)  # 0: tokens last until revoked

# Outgoing requests (config.outbound: webhooks, endpoint judges, single sign-on): never to loopback, private,
# link-local, multicast or reserved addresses, except to the hosts named here ("host" or "host:port", e.g. a
# model server on the lab's network); every answer's body read is capped (KiB).
OUTBOUND_ALLOWED_HOSTS = env_list("OUTBOUND_ALLOWED_HOSTS", [])
OUTBOUND_MAX_RESPONSE_KB = env_int("OUTBOUND_MAX_RESPONSE_KB", 1024)
