"""The one error for bad input, raised by the collection importers and the run readers alike.

It names where the problem is (the file, the record and the field) so that a person can
find it, and it is raised before anything is written.

>>> str(InputError("run.json", "probability -1 is negative", record="d1", field="nugget[0].CNUG"))
'run.json: dialogue d1: field nugget[0].CNUG: probability -1 is negative'
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: ``file`` (a path or display name), ``record`` (a dialogue id) and ``field``."""

    def __init__(self, file: str, message: str, *, record: str | None = None, field: str | None = None):
        self.file, self.message, self.record, self.field = str(file), message, record, field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = [self.file]
        if self.record is not None:
            where.append(f"dialogue {self.record}")
        if self.field is not None:
            where.append(f"field {self.field}")
        return f"{': '.join(where)}: {self.message}"
