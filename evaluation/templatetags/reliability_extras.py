"""Filters for the dashboard's reliability panel."""

from django import template
from django.utils.translation import gettext

register = template.Library()


@register.filter
def kappa_shade(value) -> str:
    """The class of a kappa cell's background: ``kappa-none`` when undefined, else ``kappa-pos-N`` or
    ``kappa-neg-N`` with N = round(5 |kappa|) (0 white through 5 strong blue or red). Classes rather than
    inline styles, which the Content-Security-Policy (style-src 'self') refuses.

    >>> kappa_shade(1.0), kappa_shade(-0.33), kappa_shade(0.04), kappa_shade(None)
    ('kappa-pos-5', 'kappa-neg-2', 'kappa-pos-0', 'kappa-none')
    """
    if value is None:
        return "kappa-none"
    x = max(-1.0, min(1.0, float(value)))
    return f"kappa-{'pos' if x >= 0 else 'neg'}-{round(5 * abs(x))}"


@register.filter
def percent(value) -> str:
    """A share as a whole percentage, or an en dash."""
    return "–" if value is None else f"{100 * float(value):.0f}%"


@register.filter
def flag_text(flag: dict) -> str:
    """A reliability flag (``{"message", "params"}``) in the reader's language.

    >>> flag_text({"message": "too fast: %(fast)s of %(items)s items under %(seconds)s s",
    ...            "params": {"fast": 3, "items": 9, "seconds": 5}})
    'too fast: 3 of 9 items under 5 s'
    """
    text, params = flag["message"], flag["params"]
    try:
        return gettext(text) % params
    except (KeyError, TypeError, ValueError):  # a translation that does not fit: the English text
        return text % params


@register.simple_tag
def models_extra_installed() -> bool:
    """Whether the optional models extra (crowd-kit: Dawid-Skene, GLAD) is installed: without it the panel says
    how to enable them (MACE runs without it)."""
    from scoring.aggregation import models_installed

    return models_installed()
