import math
from decimal import Decimal

from django import template
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

register = template.Library()

# codes the statistics payload carries, named on the pages in the reader's language
TERMS = {
    "nominal": pgettext_lazy("measurement level", "nominal"),
    "ordinal": pgettext_lazy("measurement level", "ordinal"),
    "interval": pgettext_lazy("measurement level", "interval"),
    "ratio": pgettext_lazy("measurement level", "ratio"),
    "all": pgettext_lazy("whose judgements", "all"),
    "imported": pgettext_lazy("whose judgements", "imported only"),
    "own": pgettext_lazy("whose judgements", "the project's own"),
    "linear": pgettext_lazy("kappa weights", "linear"),
    "quadratic": pgettext_lazy("kappa weights", "quadratic"),
    "none": _("unweighted"),
}


@register.filter
def get(mapping, key):
    """``mapping|get:key`` for dictionaries in templates; None when absent."""
    return mapping.get(key) if isinstance(mapping, dict) else None


@register.filter
def term(code):
    """A code of the statistics payload (``ordinal``, ``all``, ``linear``) in the reader's language; others as they are.

    >>> str(term("ordinal")), term("custom")
    ('ordinal', 'custom')
    """
    return TERMS.get(code, code) if isinstance(code, str) else code


@register.filter
def fmt(value, digits: int = 4):
    """A statistic to four decimals in the page's language (Django's number formatting), or an en dash when
    undefined.

    >>> fmt(0.5), fmt(None), fmt(12345.56, 1), fmt(0.99996), fmt(float("nan"))
    ('0.5000', '–', '12,345.6', '1.0000', 'nan')
    """
    if value is None or value == "":
        return "–"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(number):
        return str(number)
    rounded = Decimal(f"{number:.{int(digits)}f}")  # rounded as before; number_format alone would cut the digits
    return number_format(rounded, decimal_pos=int(digits), use_l10n=True, force_grouping=True)


@register.filter
def index(sequence, position):
    return sequence[position]


@register.filter
def thousands(value):
    """A count with the page language's thousands separators (1,672); an ellipsis while unknown."""
    if isinstance(value, int):
        return number_format(value, use_l10n=True, force_grouping=True)
    return "…" if value is None else value


@register.filter
def share_percent(value, digits: int = 1):
    """A share as a percentage in the page's language, to ``digits`` decimals (``12.5%``), or an en dash when
    unknown (``reliability_extras.percent`` writes whole percentages).

    >>> share_percent(0.125), share_percent(None)
    ('12.5%', '–')
    """
    if value is None or value == "":
        return "–"
    return f"{fmt(float(value) * 100, digits)}%"
