from django import template

register = template.Library()


@register.filter
def get(mapping, key):
    """``mapping|get:key`` for dictionaries in templates; None when absent."""
    return mapping.get(key) if isinstance(mapping, dict) else None


@register.filter
def fmt(value, digits: int = 4):
    """A statistic to four decimals, or an en dash when undefined."""
    if value is None or value == "":
        return "–"
    try:
        return f"{float(value):.{int(digits)}f}"
    except (TypeError, ValueError):
        return str(value)


@register.filter
def index(sequence, position):
    return sequence[position]


@register.filter
def thousands(value):
    """A count with thousands separators (1,672), as the import's progress messages write them."""
    return f"{value:,}" if isinstance(value, int) else ("…" if value is None else value)
