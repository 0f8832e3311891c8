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
        self.params = {k: v if isinstance(v, int | float) else str(v) for k, v in (params or {}).items()}
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
