"""Exports written as they are read: JSON with lazily produced lists, CSV rows and zips as byte chunks.

Exports of a large project (ten times STC-3: five million judgements) are sent as a stream
(``StreamingHttpResponse``, or written to a file by the commands) so that the memory of the process
does not grow with the project: the readers fetch the rows a chunk of dialogues at a time and the
writers below turn them into bytes as they come.

``json_chunks`` gives the same text as ``json.dumps`` with the same options: the standard library's
encoder walks lists through ``iter()`` and asks only whether they are empty, which ``LazyList``
answers without reading its rows ahead.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Iterable, Iterator
from itertools import chain

CHUNK_BYTES = 1 << 16


class LazyList(list):
    """A list for ``json_chunks`` whose items are produced while the JSON is written (once).

    >>> "".join(json.JSONEncoder(indent=None).iterencode({"a": LazyList(iter([1, 2])), "b": LazyList(iter([]))}))
    '{"a": [1, 2], "b": []}'
    """

    def __init__(self, items: Iterable):
        super().__init__()
        self._items = iter(items)
        self._first: list = []
        self._peeked = False

    def _peek(self) -> bool:
        if not self._peeked:
            self._peeked = True
            self._first = [item for item in (next(self._items, _END),) if item is not _END]
        return bool(self._first)

    def __bool__(self) -> bool:
        return self._peek()

    def __len__(self) -> int:  # only ever asked as "is it empty?" by the encoder
        return int(self._peek())

    def __iter__(self) -> Iterator:
        self._peek()
        return chain(self._first, self._items)


_END = object()


def chunked(pieces: Iterable[str | bytes], size: int = CHUNK_BYTES) -> Iterator[bytes]:
    """``pieces`` (text is UTF-8 encoded) regrouped into chunks of about ``size`` bytes."""
    buffer: list[bytes] = []
    held = 0
    for piece in pieces:
        data = piece.encode("utf-8") if isinstance(piece, str) else piece
        buffer.append(data)
        held += len(data)
        if held >= size:
            yield b"".join(buffer)
            buffer, held = [], 0
    if buffer:
        yield b"".join(buffer)


def json_chunks(document, **options) -> Iterator[bytes]:
    """The bytes of ``json.dumps(document, **options)`` (UTF-8), in chunks, ``LazyList`` rows read as they go."""
    return chunked(json.JSONEncoder(**options).iterencode(document))


def csv_chunks(rows: Iterable[list], *, lineterminator: str = "\n", rows_per_chunk: int = 2000) -> Iterator[bytes]:
    """``rows`` written by ``SafeCsvWriter`` (no cell starts a formula), as UTF-8 chunks of ``rows_per_chunk``."""
    from .cells import SafeCsvWriter

    buffer = io.StringIO()
    writer = SafeCsvWriter(buffer, lineterminator=lineterminator)
    for n, row in enumerate(rows, 1):
        writer.writerow(row)
        if n % rows_per_chunk == 0:
            yield buffer.getvalue().encode("utf-8")
            buffer.seek(0)
            buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue().encode("utf-8")


class _Sink(io.RawIOBase):
    """A write-only file collecting what ``zipfile`` writes, handed out by ``ZipStream.drain``."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[bytes] = []
        self.position = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.parts.append(bytes(data))
        self.position += len(data)
        return len(data)

    def tell(self) -> int:
        return self.position

    def drain(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


def zip_chunks(members: Iterable[tuple[str, Callable[[], Iterable[bytes]]]]) -> Iterator[bytes]:
    """A zip of ``members`` ((name, a function giving the member's bytes in pieces)), as it is written.

    The output is not seekable, so each member's sizes and CRC follow its data (a data descriptor, as
    every unzip reads); the same members give the same bytes (fixed timestamps and permissions).
    """
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, pieces in members:
            member = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_DEFLATED
            member.external_attr = 0o644 << 16
            with archive.open(member, "w", force_zip64=True) as out:
                for piece in pieces():
                    out.write(piece)
                    if len(sink.parts) > 16:
                        yield sink.drain()
            yield sink.drain()
    yield sink.drain()
