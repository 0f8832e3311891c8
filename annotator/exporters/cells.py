"""CSV cells that a spreadsheet cannot mistake for a formula (CSV / formula injection).

Imported text (dialogue ids, speakers, values) may start with ``=``, ``+``, ``-``, ``@``, a tab or
a carriage return, which Excel, LibreOffice and Google Sheets treat as the start of a formula.
Such a cell is written with a leading apostrophe, which the spreadsheet shows as text (OWASP's
advice). Numbers stay numbers: Python numbers are written as they are, and so is text that is a
plain decimal number such as a scale value ``-1``.

>>> [csv_cell(v) for v in ["=HYPERLINK(\\"x\\")", "-1", "-2.5e3", "@SUM(A1)", "\\tx", "d1", 0.25, -3]]
['\\'=HYPERLINK("x")', '-1', '-2.5e3', "'@SUM(A1)", "'\\tx", 'd1', 0.25, -3]
"""

from __future__ import annotations

import csv
import io
import re

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value):
    """``value`` unchanged, unless it is text a spreadsheet would read as a formula: then prefixed with ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


class SafeCsvWriter:
    r"""``csv.writer`` whose rows pass through ``csv_cell``, and whose cells holding a carriage return are quoted.

    With ``lineterminator="\n"`` the csv module leaves a bare CR unquoted, and a spreadsheet ends the
    row there: the text after it would start a cell of its own. Such rows are written by a writer whose
    line terminator holds CR (so it quotes them), with the row's ending put back.

    >>> buffer = io.StringIO()
    >>> SafeCsvWriter(buffer, lineterminator="\n").writerow(["a\r=1+1", "-1", 2])
    >>> buffer.getvalue()
    '"a\r=1+1",-1,2\n'
    """

    def __init__(self, buffer, *, lineterminator: str = "\r\n", **kwargs):
        self._buffer, self._end = buffer, lineterminator
        self._writer = csv.writer(buffer, lineterminator=lineterminator, **kwargs)
        self._scratch = io.StringIO()
        self._quoting = csv.writer(self._scratch, lineterminator="\r\n", **kwargs)

    def writerow(self, row) -> None:
        cells = [csv_cell(v) for v in row]
        if "\r" in self._end or not any(isinstance(c, str) and "\r" in c for c in cells):
            self._writer.writerow(cells)
            return
        self._scratch.seek(0)
        self._scratch.truncate()
        self._quoting.writerow(cells)
        self._buffer.write(self._scratch.getvalue()[:-2] + self._end)
