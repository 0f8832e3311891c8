"""The login page's single sign-on button."""

from django import template
from django.conf import settings

register = template.Library()


@register.simple_tag
def sso_provider() -> str:
    """The provider's name when single sign-on is on (``OIDC_ENABLED``), else ""."""
    return settings.OIDC_PROVIDER_NAME if settings.OIDC_ENABLED else ""
