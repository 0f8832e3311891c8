"""The one error for bad input, raised by the collection importers and the run readers alike.

It names where the problem is (the file, the record and the field) so that a person can
find it, and it is raised before anything is written.

>>> str(InputError("run.json", "probability -1 is negative", record="d1", field="nugget[0].CNUG"))
'run.json: dialogue d1: field nugget[0].CNUG: probability -1 is negative'

The message is a template marked with ``N_`` (a no-op: this library imports no Django) whose
``%(name)s`` placeholders are filled from ``params``. ``str()`` is the English text; the Django side
translates the template and the frame for the reader (``annotator.input_errors``), and ``makemessages
--keyword=N_`` collects the templates into the catalogues.

>>> error = InputError("a.json", N_("probability %(value)s is negative"), record="d1", params={"value": "-1"})
>>> error.message, error.template, error.params
('probability -1 is negative', 'probability %(value)s is negative', {'value': '-1'})
"""

from __future__ import annotations

import math

MESSAGE_MAX_LENGTH = 5000  # characters of a stored failure message (a job's error)


def N_(message: str) -> str:
    """Marks a message template for the translation catalogues; returns it unchanged."""
    return message


class InputError(ValueError):
    """Bad input: ``file`` (a path or display name), ``record`` (a dialogue id) and ``field``."""

    def __init__(
        self,
        file: str,
        message: str,
        *,
        record: str | None = None,
        field: str | None = None,
        params: dict | None = None,
    ):
        self.template = message
        # parameters kept as plain text or numbers (they are stored with failed imports, as JSON)
        self.params = {k: _storable_param(v) for k, v in (params or {}).items()}
        self.file, self.message, self.record, self.field = (
            str(file),
            message % self.params if self.params else message,
            record,
            field,
        )
        super().__init__(str(self))

    def __str__(self) -> str:
        where = [self.file]
        if self.record is not None:
            where.append(f"dialogue {self.record}")
        if self.field is not None:
            where.append(f"field {self.field}")
        return f"{': '.join(where)}: {self.message}"


def storable_message(text: str, max_length: int = MESSAGE_MAX_LENGTH) -> str:
    """``text`` as any database column and page can hold it: a NUL and lone surrogates written as escapes
    (``\\x00``, ``\\ud800``), cut to ``max_length`` characters. Every failed job's message is stored
    through it, so that failing a job can never fail in turn.

    >>> storable_message("id d\\x00\\ud800: bad")
    'id d\\\\x00\\\\ud800: bad'
    >>> storable_message("x" * 10, 4)
    'xxx…'
    """
    text = text.replace("\x00", "\\x00").encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= max_length else text[: max_length - 1] + "…"


def crash_text(exc: BaseException) -> str:
    """``Type: message`` of an unforeseen error, for a failed job's message; never itself an error (some
    messages cannot be formatted, e.g. one holding an integer of more than 4300 digits)."""
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:
        return type(exc).__name__


def _storable_param(value):
    """A message parameter as JSON and ``%`` formatting take it: finite numbers of at most 64 bits, else text."""
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        return f"an integer of {value.bit_length()} bits"  # str() refuses more than 4300 digits
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value if isinstance(value, int | float) else storable_message(str(value))
