"""Filters that show stored messages in the reader's language."""

from __future__ import annotations

from django import template

from annotator.models import ImportBatch
from annotator.selectors.imports import import_batch_error
from annotator.wording import speaker_name

register = template.Library()


@register.filter
def import_error(batch: ImportBatch) -> str:
    """Why a failed import was refused, translated (``annotator.selectors.imports.import_batch_error``)."""
    return import_batch_error(batch=batch)


@register.filter
def speaker(name: str) -> str:
    """A preset speaker's name in the reader's language (``annotator.wording.speaker_name``)."""
    return speaker_name(name)
