"""Walking the files of a source: one file, every file of a folder, or every member of a zip.

Collections (DBDC logs) and system runs (DBDC label files, STC-3 submissions) arrive the same
ways, so the importers and the run readers share this walker. Each file comes back as a
``SourceFile``: a display name for messages (``path`` or ``archive.zip:member``), its path
relative to the source's root, and its bytes. Folder entries and operating-system litter
(hidden files, ``__MACOSX``) are never part of a source.

>>> import io, zipfile
>>> buffer = io.BytesIO()
>>> with zipfile.ZipFile(buffer, "w") as archive:
...     archive.writestr("run/a.json", b"{}")
...     archive.writestr("__MACOSX/run/._a.json", b"")
>>> [f.display for f in expand_archives([("run.zip", buffer.getvalue())])]
['run.zip:run/a.json']
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from scoring.errors import InputError


class SourceFile(NamedTuple):
    display: str
    relative: str
    content: bytes


def is_litter(relative: str) -> bool:
    """Folder entries, hidden files and ``__MACOSX``: never part of a collection or a run."""
    parts = relative.split("/")
    return relative.endswith("/") or any(p.startswith(".") or p == "__MACOSX" for p in parts)


def member_path(name: str, display: str) -> str:
    """A zip member's name as a path relative to the archive's root, ``./`` parts dropped.

    Names that would reach outside the root when extracted - absolute paths (``/etc/x``, ``C:/x``,
    backslashes for separators) or ``..`` parts - are refused with ``InputError``, never skipped.

    >>> member_path("./logs/a.log.json", "in.zip")
    'logs/a.log.json'
    >>> member_path("../a.log.json", "in.zip")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.errors.InputError: in.zip:../a.log.json: unsafe member name ...
    """
    parts = name.split("/")
    if name.startswith("/") or "\\" in name or re.match(r"^[A-Za-z]:", name) or ".." in parts:
        raise InputError(
            f"{display}:{name}",
            "unsafe member name (an absolute path or a '..' part would write outside the folder it is "
            "extracted to); rename it",
        )
    kept = [p for p in parts[:-1] if p not in ("", ".")] + parts[-1:]
    return "/".join(kept)


def _zip_members(archive_file, display: str) -> Iterator[SourceFile]:
    try:
        archive = zipfile.ZipFile(archive_file)
    except zipfile.BadZipFile as exc:
        raise InputError(display, f"not a readable zip: {exc}") from None
    with archive:
        for info in sorted(archive.infolist(), key=lambda i: i.filename):
            relative = member_path(info.filename, display)
            if info.is_dir() or is_litter(relative):
                continue
            member = f"{display}:{relative}"
            try:
                content = archive.read(info)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError) as exc:
                # a bad CRC, truncated or corrupt data, an unsupported compression, an encrypted member
                raise InputError(member, f"cannot be read from the zip: {exc}") from None
            yield SourceFile(member, relative, content)


def walk_path(path: Path | str) -> Iterator[SourceFile]:
    """Every file of ``path``: the file itself, a folder's files (sorted) or a zip's members."""
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "does not exist")
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            relative = file.relative_to(path).as_posix()
            if not is_litter(relative):
                yield SourceFile(str(file), relative, file.read_bytes())
    elif path.name.lower().endswith(".zip"):
        yield from _zip_members(path, str(path))
    else:
        yield SourceFile(str(path), path.name, path.read_bytes())


def expand_archives(files: Iterable[tuple[str, bytes]]) -> Iterator[SourceFile]:
    """Uploaded files as given, with every zip among them replaced by its members."""
    for name, raw in files:
        if zipfile.is_zipfile(io.BytesIO(raw)):
            yield from _zip_members(io.BytesIO(raw), name)
        else:
            yield SourceFile(name, Path(name).name, raw)
