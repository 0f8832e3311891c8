"""Uploaded files: the size limit every upload path checks."""

from __future__ import annotations

from django.conf import settings

from annotator.importers import InputError
from scoring.errors import N_


def upload_check_size(*, name: str, size: int | None) -> None:
    """Refuse an uploaded file larger than ``UPLOAD_MAX_BYTES`` (the middleware refuses larger requests unread)."""
    limit = settings.UPLOAD_MAX_BYTES
    if size is not None and size > limit:
        raise InputError(
            name,
            N_("is %(size)s bytes; uploads are limited to %(limit)s bytes (UPLOAD_MAX_MB)"),
            params={"size": format(size, ","), "limit": format(limit, ",")},
        )
