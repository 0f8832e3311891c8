"""One time format on every page: UTC, ``2025-05-06 14:03 UTC``, in a ``<time>`` element.

The pages' scripts write the same format (``static/js/annotate.js``: ``Draft saved at 14:03:12 UTC``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.utils.html import format_html

register = template.Library()


def utc_text(value: datetime, *, seconds: bool = False) -> str:
    """``2025-05-06 14:03 UTC`` (with ``:SS`` when ``seconds``) for an aware datetime.

    >>> utc_text(datetime(2025, 5, 6, 14, 3, 9, tzinfo=UTC), seconds=True)
    '2025-05-06 14:03:09 UTC'
    """
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC" if seconds else "%Y-%m-%d %H:%M UTC")


@register.filter
def utc(value: datetime | None, arg: str = ""):
    """``{{ when|utc }}`` or ``{{ when|utc:"seconds" }}``: the time in UTC in a ``<time>`` element; "–" for none."""
    if not value:
        return "–"
    return format_html(
        '<time datetime="{}">{}</time>',
        value.astimezone(UTC).isoformat(),
        utc_text(value, seconds=arg == "seconds"),
    )


@register.filter
def duration(seconds: int | None) -> str:
    """Time spent: ``45 s``, ``3 min 05 s``, ``2 h 04 min``; "–" for none.

    >>> duration(185), duration(7440), duration(0)
    ('3 min 05 s', '2 h 04 min', '–')
    """
    if not seconds:
        return "–"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"
