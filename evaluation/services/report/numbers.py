"""Numbers and times as the report prints them."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils.translation import gettext


def number(x, digits: int = 3) -> str:
    """A figure as the report prints it: ``digits`` decimals, "undefined" for a null.

    >>> number(0.41234), number(None), number(12, 0)
    ('0.412', 'undefined', '12')
    """
    return gettext("undefined") if x is None else f"{x:.{digits}f}"


def seconds(x) -> str:
    """Seconds to the nearest one (to a tenth under ten)."""
    return number(x, 1 if x is not None and x < 10 else 0)


def utc_text(moment: datetime | None) -> str:
    """A stored time as the report states it, in UTC to the second."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if moment else ""
