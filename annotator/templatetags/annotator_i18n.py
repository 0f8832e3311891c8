"""Filters that show stored messages in the reader's language."""

from __future__ import annotations

from django import template

from annotator.models import ImportBatch
from annotator.selectors.imports import import_batch_error

register = template.Library()


@register.filter
def import_error(batch: ImportBatch) -> str:
    """Why a failed import was refused, translated (``annotator.selectors.imports.import_batch_error``)."""
    return import_batch_error(batch=batch)
