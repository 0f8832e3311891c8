"""Exports written as they are read: JSON with lazily produced lists, CSV rows and zips as byte chunks.

Exports of a large project (ten times STC-3: five million judgements) are sent as a stream
(``StreamingHttpResponse``, or written to a file by the commands) so that the memory of the process
does not grow with the project: the readers fetch the rows a chunk of dialogues at a time and the
writers below turn them into bytes as they come.

``json_chunks`` gives the same text as ``json.dumps`` with the same options: the standard library's
encoder walks lists through ``iter()`` and asks only whether they are empty, which ``LazyList``
answers without reading its rows ahead. Without indentation each row is written by the standard
library's C encoder (``_OneShot``): its pure-Python walk took 4 times as long for a project's
archive.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from json.encoder import c_make_encoder, encode_basestring, encode_basestring_ascii

CHUNK_BYTES = 1 << 16


class LazyList(list):
    """A list for ``json_chunks`` whose items are produced while the JSON is written (once).

    >>> "".join(json.JSONEncoder(indent=None).iterencode({"a": LazyList(iter([1, 2])), "b": LazyList(iter([]))}))
    '{"a": [1, 2], "b": []}'
    """

    def __init__(self, items: Iterable):
        super().__init__([_UNWRITTEN])  # what the C encoder would see of it: refused (``_OneShot``)
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


class _Unwritten:
    """Stands in a ``LazyList``'s own storage, which only the C encoder reads (and must not)."""


_UNWRITTEN = _Unwritten()


class _HoldsLazy(Exception):
    """A value handed to the C encoder holds a ``LazyList``: it is walked instead."""


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
    if options.get("indent") is not None or c_make_encoder is None:
        return chunked(json.JSONEncoder(**options).iterencode(document))
    return chunked(_OneShot(options).pieces(document))


class _OneShot:
    """``json.dumps`` without indentation, a ``LazyList`` item (or a value holding none) at a time in one call of
    the standard library's C encoder (made once: ``JSONEncoder.encode`` makes one a call, which took as long as
    the writing); a list or an object holding a ``LazyList``, walked."""

    def __init__(self, options: dict):
        given = options.pop("default", None)

        def default(value):
            if value is _UNWRITTEN:
                raise _HoldsLazy
            return given(value) if given is not None else json.JSONEncoder.default(self.encoder, value)

        self.encoder = json.JSONEncoder(**options, default=default)
        self.text = encode_basestring_ascii if self.encoder.ensure_ascii else encode_basestring
        self._fresh()

    def _fresh(self) -> None:
        """The C encoder, with no value marked as being written (a refused one leaves its marks)."""
        e = self.encoder
        self.c = c_make_encoder({} if e.check_circular else None, e.default, self.text, None, e.key_separator,
                                e.item_separator, e.sort_keys, e.skipkeys, e.allow_nan)  # fmt: skip

    def one(self, value) -> str:
        """``value`` written (a text is written by the same function the C encoder calls)."""
        if isinstance(value, str):
            return self.text(value)
        return "".join(self.c(value, 0))

    def pieces(self, value) -> Iterator[str]:
        item_separator, key_separator = self.encoder.item_separator, self.encoder.key_separator
        if isinstance(value, LazyList):
            yield "["
            separator, one = "", self.one
            for item in value:
                try:
                    yield separator + one(item)
                except _HoldsLazy:
                    self._fresh()
                    yield separator
                    yield from self.pieces(item)
                separator = item_separator
            yield "]"
            return
        try:
            yield self.one(value)
            return
        except _HoldsLazy:
            self._fresh()
        if isinstance(value, dict) and all(isinstance(key, str) for key in value):
            yield "{"
            for i, (key, item) in enumerate(sorted(value.items()) if self.encoder.sort_keys else value.items()):
                yield (item_separator if i else "") + self.text(key) + key_separator
                yield from self.pieces(item)
            yield "}"
        elif isinstance(value, list | tuple):
            yield "["
            for i, item in enumerate(value):
                if i:
                    yield item_separator
                yield from self.pieces(item)
            yield "]"
        else:  # keys that are not text: the standard library's walk, which reads a LazyList through iter()
            yield from self.encoder.iterencode(value)


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
