"""Filters for the dashboard's reliability panel."""

from django import template
from django.utils.translation import gettext

register = template.Library()


@register.filter
def kappa_colour(value) -> str:
    """A background for a kappa cell: red (-1) through white (0) to blue (1); grey when undefined.

    >>> kappa_colour(1.0), kappa_colour(None)
    ('hsl(215, 70%, 55%)', '#ddd')
    """
    if value is None:
        return "#ddd"
    x = max(-1.0, min(1.0, float(value)))
    hue = 215 if x >= 0 else 5
    return f"hsl({hue}, 70%, {round(100 - 45 * abs(x))}%)"


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
