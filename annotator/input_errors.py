"""Bad-input errors (``scoring.errors.InputError``) in the reader's language.

The library keeps each message as an untranslated template (marked ``N_``) with its parameters; here the
frame (file, dialogue, field) and the message are translated when a page or the API shows them. Failed
imports keep the template and the parameters (``ImportBatch.error_detail``), so that a lead reading the
import list later sees the error in their own language.
"""

from __future__ import annotations

from contextlib import suppress

from django.utils.translation import gettext

from scoring.errors import InputError, storable_message


def input_error_detail(error: InputError) -> dict:
    """What is stored of an error: where it is, its English message, and its template with parameters
    (texts made storable: a record named by an id that holds a NUL is still stored)."""

    def storable(text: str | None) -> str | None:
        return None if text is None else storable_message(str(text), 1000)

    return {
        "file": storable(error.file),
        "record": storable(error.record),
        "field": storable(error.field),
        "message": storable_message(error.message),
        "template": error.template,
        "params": error.params,
    }


def input_error_text(detail: InputError | dict) -> str:
    """``file: dialogue d1: field x: message``, translated (the English text when the message is unknown)."""
    if isinstance(detail, InputError):
        detail = input_error_detail(detail)
    template, params = detail.get("template"), detail.get("params") or {}
    message = detail.get("message", "")
    if template:
        with suppress(KeyError, TypeError, ValueError):  # a translation that does not fit: the English text
            message = gettext(template) % params if params else gettext(template)
    where = [str(detail.get("file", ""))]
    if detail.get("record") is not None:
        where.append(gettext("dialogue %(record)s") % {"record": detail["record"]})
    if detail.get("field") is not None:
        where.append(gettext("field %(field)s") % {"field": detail["field"]})
    return gettext("%(where)s: %(message)s") % {"where": gettext(": ").join(where), "message": message}
