"""Every table a lead page shows, downloadable as CSV or JSON: one helper for all the pages.

A page lists its tables (``DownloadTable``: a name, the columns and a function giving the rows as dicts) and
calls ``table_download`` first: with ``?download=csv`` or ``?download=json`` and ``&table=NAME`` it answers the
file (streamed: the rows are read as they are written), else None and the page renders as usual. The page's
own filters stay in the query string, so the download holds the rows the page filters (all of them, not one
page of them). ``templates/includes/downloads.html`` draws the links.

CSV cells pass through ``SafeCsvWriter`` (no cell starts a formula); times are ISO 8601 in UTC; an empty value
is an empty cell in CSV and null in JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.http import Http404, StreamingHttpResponse

from annotator.filenames import attachment

from .stream import LazyList, csv_chunks, json_chunks

DOWNLOAD_FORMATS = {"csv": "text/csv; charset=utf-8", "json": "application/json"}


@dataclass(frozen=True)
class DownloadTable:
    name: str  # the ?table= value and the end of the file's name
    columns: tuple[str, ...]
    rows: Callable[[], Iterable[dict]]


def _plain(value):
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    return value


def _csv_rows(table: DownloadTable) -> Iterator[list]:
    yield list(table.columns)
    for row in table.rows():
        yield ["" if row.get(c) is None else _plain(row.get(c)) for c in table.columns]


def table_download(request, *, prefix: str, tables: list[DownloadTable]) -> StreamingHttpResponse | None:
    """The file of the table ``?table=`` in the format ``?download=`` (404 for an unknown one); None when
    the request asks for no download."""
    fmt = request.GET.get("download")
    if fmt is None:
        return None
    table = next((t for t in tables if t.name == request.GET.get("table")), None)
    if fmt not in DOWNLOAD_FORMATS or table is None:
        raise Http404("no such download")
    return table_file(table, fmt, prefix=prefix)


def table_chunks(table: DownloadTable, fmt: str) -> Iterator[bytes]:
    """``table`` as CSV or JSON, in chunks as it is written (the pages' downloads and the commands' files)."""
    if fmt == "csv":
        return csv_chunks(_csv_rows(table))
    rows = ({c: _plain(row.get(c)) for c in table.columns} for row in table.rows())
    return json_chunks(LazyList(rows), ensure_ascii=False, indent=1)


def table_file(table: DownloadTable, fmt: str, *, prefix: str) -> StreamingHttpResponse:
    """``table`` as a streamed CSV or JSON attachment named ``PREFIX-TABLE.FORMAT``."""
    response = StreamingHttpResponse(table_chunks(table, fmt), content_type=DOWNLOAD_FORMATS[fmt])
    response["Content-Disposition"] = attachment(f"{prefix}-{table.name}.{fmt}")
    return response
