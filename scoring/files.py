"""Walking the files of a source: one file, every file of a folder, or every member of a zip.

Collections (DBDC logs) and system runs (DBDC label files, STC-3 submissions) arrive the same
ways, so the importers and the run readers share this walker. Each file comes back as a
``SourceFile``: a display name for messages (``path`` or ``archive.zip:member``), its path
relative to the source's root, and its bytes. Folder entries and operating-system litter
(hidden files, ``__MACOSX``) are never part of a source.

Archives are opened with limits (``ArchiveLimits``): the member count, the total uncompressed
size and the compression ratio of large members are read from the zip's directory and checked
before any member is expanded, so a zip bomb is refused at the cost of reading its listing. The
sizes in the directory bound what is expanded: ``zipfile`` never returns more than a member's
declared size (a member that holds more fails its CRC check). Every unreadable archive or member
(bad CRC, corrupt deflate data, encryption, an unsupported method) is an ``InputError``.

>>> import io, zipfile
>>> buffer = io.BytesIO()
>>> with zipfile.ZipFile(buffer, "w") as archive:
...     archive.writestr("run/a.json", b"{}")
...     archive.writestr("__MACOSX/run/._a.json", b"")
>>> [f.display for f in expand_archives([("run.zip", buffer.getvalue())])]
['run.zip:run/a.json']
>>> list(expand_archives([("run.zip", buffer.getvalue())], ArchiveLimits(max_members=1)))
Traceback (most recent call last):
...
scoring.errors.InputError: run.zip: field members: has 2 members; at most 1 are accepted
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from scoring.errors import N_, InputError

# What a broken or hostile zip raises from ``zipfile`` besides BadZipFile: truncated data,
# corrupt deflate streams, encrypted members (RuntimeError), unsupported methods, bad headers.
ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    EOFError,
    OSError,
    RuntimeError,
    NotImplementedError,
    ValueError,
    OverflowError,
    struct.error,
)


@dataclass(frozen=True)
class ArchiveLimits:
    """Bounds for opening a zip: members, total uncompressed bytes, and the compression ratio.

    The ratio applies to members larger than ``ratio_floor`` bytes (tiny files compress oddly;
    their size is bounded by the total). Real collections stay far inside the defaults: the
    DBDC3 release has 1,567 members, 104 MB in all, and a largest ratio of 43:1.
    """

    max_members: int = 10_000
    max_total_bytes: int = 1 << 30
    max_ratio: float = 100.0
    ratio_floor: int = 1 << 20


DEFAULT_LIMITS = ArchiveLimits()


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
            N_(
                "unsafe member name (an absolute path or a '..' part would write outside the folder it is "
                "extracted to); rename it"
            ),
        )
    kept = [p for p in parts[:-1] if p not in ("", ".")] + parts[-1:]
    return "/".join(kept)


def check_listing(infos: list[zipfile.ZipInfo], display: str, limits: ArchiveLimits) -> None:
    """Refuse an archive whose directory exceeds ``limits`` (nothing is expanded to find out)."""
    if len(infos) > limits.max_members:
        raise InputError(
            display,
            N_("has %(len)s members; at most %(max_members)s are accepted"),
            field="members",
            params={"len": len(infos), "max_members": limits.max_members},
        )
    total = sum(info.file_size for info in infos)
    if total > limits.max_total_bytes:
        raise InputError(
            display,
            N_("expands to %(total)s bytes, more than the %(max_total_bytes)s accepted for an archive's contents"),
            field="size",
            params={"total": format(total, ","), "max_total_bytes": format(limits.max_total_bytes, ",")},
        )
    for info in infos:
        if info.file_size > limits.ratio_floor and info.file_size > limits.max_ratio * max(info.compress_size, 1):
            ratio = info.file_size / max(info.compress_size, 1)
            raise InputError(
                f"{display}:{info.filename}",
                N_("compresses %(ratio)s:1, more than the %(max_ratio)s:1 accepted (a zip bomb?)"),
                field="compression",
                params={"ratio": format(ratio, ",.0f"), "max_ratio": format(limits.max_ratio, ",.0f")},
            )


def _open_zip(archive_file, display: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(archive_file)
    except ZIP_ERRORS as exc:
        raise InputError(display, N_("not a readable zip: %(exc)s"), params={"exc": exc}) from None


def check_archive(archive_file, display: str, limits: ArchiveLimits = DEFAULT_LIMITS) -> None:
    """Open a zip (a path or a file object) and check its listing against ``limits``."""
    with _open_zip(archive_file, display) as archive:
        check_listing(archive.infolist(), display, limits)


def _zip_members(archive_file, display: str, limits: ArchiveLimits) -> Iterator[SourceFile]:
    archive = _open_zip(archive_file, display)
    with archive:
        infos = archive.infolist()
        check_listing(infos, display, limits)
        for info in sorted(infos, key=lambda i: i.filename):
            relative = member_path(info.filename, display)
            if info.is_dir() or is_litter(relative):
                continue
            member = f"{display}:{relative}"
            try:
                content = archive.read(info)
            except ZIP_ERRORS as exc:
                raise InputError(member, N_("cannot be read from the zip: %(exc)s"), params={"exc": exc}) from None
            yield SourceFile(member, relative, content)


def walk_path(path: Path | str, limits: ArchiveLimits = DEFAULT_LIMITS) -> Iterator[SourceFile]:
    """Every file of ``path``: the file itself, a folder's files (sorted) or a zip's members."""
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), N_("does not exist"))
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            relative = file.relative_to(path).as_posix()
            if not is_litter(relative):
                yield SourceFile(str(file), relative, file.read_bytes())
    elif path.name.lower().endswith(".zip"):
        yield from _zip_members(path, str(path), limits)
    else:
        yield SourceFile(str(path), path.name, path.read_bytes())


def is_zip(raw: bytes) -> bool:
    try:
        return zipfile.is_zipfile(io.BytesIO(raw))
    except ZIP_ERRORS:
        return False


def expand_archives(files: Iterable[tuple[str, bytes]], limits: ArchiveLimits = DEFAULT_LIMITS) -> Iterator[SourceFile]:
    """Uploaded files as given, with every zip among them replaced by its members."""
    for name, raw in files:
        if is_zip(raw):
            yield from _zip_members(io.BytesIO(raw), name, limits)
        else:
            yield SourceFile(name, Path(name).name, raw)


def check_archives(files: Iterable[tuple[str, bytes]], limits: ArchiveLimits = DEFAULT_LIMITS) -> None:
    """Check every zip among uploaded files against ``limits`` (before they are stored for later)."""
    for name, raw in files:
        if is_zip(raw):
            check_archive(io.BytesIO(raw), name, limits)
