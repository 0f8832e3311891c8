"""One time format on every page: UTC, in a ``<time>`` element, written the language's way.

English keeps ``2025-05-06 14:03 UTC``; Japanese and Chinese write the date as their locale does
(``2025年5月6日 14:03 UTC``). The pages' scripts write times with ``Intl`` in the page's language
(``static/js/annotate.js``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.utils import formats, translation
from django.utils.html import format_html
from django.utils.translation import gettext as _

from annotator.wording import minutes_text

register = template.Library()


def utc_text(value: datetime, *, seconds: bool = False) -> str:
    """``2025-05-06 14:03 UTC`` (with ``:SS`` when ``seconds``) for an aware datetime, in English;
    the active language's date format otherwise.

    >>> utc_text(datetime(2025, 5, 6, 14, 3, 9, tzinfo=UTC), seconds=True)
    '2025-05-06 14:03:09 UTC'
    >>> with translation.override("ja"):
    ...     utc_text(datetime(2025, 5, 6, 14, 3, 9, tzinfo=UTC))
    '2025年5月6日 14:03 UTC'
    """
    value = value.astimezone(UTC)
    clock = value.strftime("%H:%M:%S" if seconds else "%H:%M")
    language = translation.get_language() or "en"
    if language.startswith("en"):
        return f"{value:%Y-%m-%d} {clock} UTC"
    return f"{formats.date_format(value, 'DATE_FORMAT')} {clock} UTC"


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
    """Time spent: ``45 s``, ``3 min 05 s``, ``2 h 04 min`` (``3分05秒`` in Japanese); "–" for none.

    >>> duration(185), duration(7440), duration(0)
    ('3 min 05 s', '2 h 04 min', '–')
    """
    if not seconds:
        return "–"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return _("%(hours)d h %(minutes)02d min") % {"hours": hours, "minutes": minutes}
    if minutes:
        return _("%(minutes)d min %(seconds)02d s") % {"minutes": minutes, "seconds": secs}
    return _("%(seconds)d s") % {"seconds": secs}


@register.filter
def minutes(value: int | None) -> str:
    """``{{ study.time_limit_minutes|minutes }}``: ``1 minute``, ``60 minutes``; "–" for none."""
    return "–" if value is None else minutes_text(int(value))
