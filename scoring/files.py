"""Walking the files of a source: one file, every file of a folder, every member of a zip, or what a gzipped
file holds.

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

    The ratio applies to members larger than ``ratio_floor`` bytes (tiny files compress oddly) and to the
    smaller ones taken together once they expand beyond it (many small members of zeros). The defaults are sized for the
    real collections times 100: the DBDC3 release has 1,567 members, 104 MB in all (29:1 as a whole), and a
    largest ratio of 43:1; its English evaluation set is 200 files of 13 MB, so a hundred times it is 20,000
    files of 1.3 GB; STC-3's training sets are 28 MB (11:1).
    """

    max_members: int = 200_000
    max_total_bytes: int = 4 << 30
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
    # members up to the floor escape the check above (tiny files compress oddly): as a whole, they may not
    small = [info for info in infos if info.file_size <= limits.ratio_floor]
    expanded, compressed = sum(i.file_size for i in small), sum(i.compress_size for i in small)
    if expanded > limits.ratio_floor and expanded > limits.max_ratio * max(compressed, 1):
        raise InputError(
            display,
            N_(
                "its small members expand to %(total)s bytes, more than %(max_ratio)s times their %(compressed)s "
                "compressed bytes (a zip bomb?)"
            ),
            field="compression",
            params={
                "total": format(expanded, ","),
                "max_ratio": format(limits.max_ratio, ",.0f"),
                "compressed": format(compressed, ","),
            },
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
        raw = path.read_bytes()
        if is_gzip(raw):
            yield from _gunzipped(str(path), raw, limits)
        else:
            yield SourceFile(str(path), path.name, raw)


def is_zip(raw: bytes) -> bool:
    try:
        return zipfile.is_zipfile(io.BytesIO(raw))
    except ZIP_ERRORS:
        return False


def is_gzip(raw: bytes) -> bool:
    """Whether ``raw`` starts as a gzip stream does (RFC 1952: 1f 8b, then deflate)."""
    return raw[:3] == b"\x1f\x8b\x08"


def _gzip_name(raw: bytes) -> str | None:
    """The original file name a gzip header records (FNAME), if any (RFC 1952, section 2.3)."""
    flags, at = raw[3] if len(raw) > 3 else 0, 10
    if flags & 4:  # FEXTRA: two bytes of length, then that many
        if len(raw) < at + 2:
            return None
        at += 2 + int.from_bytes(raw[at : at + 2], "little")
    if not flags & 8:
        return None
    end = raw.find(b"\0", at)
    return raw[at:end].decode("latin-1") if end > at else None


def gunzip(raw: bytes, display: str, limits: ArchiveLimits = DEFAULT_LIMITS) -> bytes:
    """A gzip file's content (every member of a multi-member file), expanded no further than the limits allow:
    a total above ``max_total_bytes``, or a ratio above ``max_ratio`` once past ``ratio_floor``, is refused
    before more is expanded (a gzip bomb costs at most the limit).

    >>> import gzip
    >>> gunzip(gzip.compress(b'[{"id": "d1"}]'), "run.json.gz")
    b'[{"id": "d1"}]'
    >>> gunzip(bytes.fromhex("1f8b08") + b"not gzip", "run.json.gz")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    scoring.errors.InputError: run.json.gz: not a readable gzip file: ...
    """
    out, size, rest = [], 0, raw
    try:
        while rest:
            stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
            while True:
                chunk = stream.decompress(rest, max(limits.max_total_bytes - size + 1, 1))
                out.append(chunk)
                size += len(chunk)
                _check_expanded(size, len(raw), display, limits)
                rest = stream.unconsumed_tail
                if stream.eof or not rest:
                    break
            if not stream.eof:
                raise EOFError("the compressed stream ends early")
            rest = stream.unused_data.lstrip(b"\0")  # the next member, or padding
    except InputError:
        raise
    except ZIP_ERRORS as exc:
        raise InputError(display, N_("not a readable gzip file: %(exc)s"), params={"exc": exc}) from None
    return b"".join(out)


def check_gzip(raw: bytes, display: str, limits: ArchiveLimits = DEFAULT_LIMITS) -> None:
    """Refuse a gzip file whose trailer (ISIZE: the size it expands to, modulo 2^32) exceeds ``limits``, without
    expanding it, as ``check_listing`` does for a zip; ``gunzip`` enforces the limits again as it expands
    (the trailer of a crafted file may lie).

    >>> import gzip
    >>> check_gzip(gzip.compress(b"0" * 5_000_000), "run.json.gz")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    scoring.errors.InputError: run.json.gz: compresses more than 100:1 (a gzip bomb?)
    """
    _check_expanded(int.from_bytes(raw[-4:], "little") if len(raw) >= 18 else 0, len(raw), display, limits)


def _check_expanded(size: int, compressed: int, display: str, limits: ArchiveLimits) -> None:
    """Refuse ``size`` expanded bytes from ``compressed`` beyond ``limits`` (total, then ratio)."""
    if size > limits.max_total_bytes:
        raise InputError(
            display,
            N_("expands to more than %(max_total_bytes)s bytes; at most that is accepted"),
            params={"max_total_bytes": format(limits.max_total_bytes, ",")},
        )
    if size > limits.ratio_floor and size > limits.max_ratio * max(compressed, 1):
        raise InputError(
            display,
            N_("compresses more than %(max_ratio)s:1 (a gzip bomb?)"),
            params={"max_ratio": format(limits.max_ratio, ",.0f")},
        )


def _gunzipped(name: str, raw: bytes, limits: ArchiveLimits) -> Iterator[SourceFile]:
    """A gzip file's content as the file it holds: ``run.json.gz`` is ``run.json`` (or the name its header
    records); a zip inside is expanded; a tar is refused with a reason, as the reader would not see one."""
    content = gunzip(raw, name, limits)
    if is_zip(content):
        yield from _zip_members(io.BytesIO(content), name, limits)
        return
    if content[257:262] == b"ustar":
        raise InputError(name, N_("is a tar archive; send a zip, or the files themselves (gzipped or not)"))
    inner = Path(name).name
    if inner.lower().endswith(".gz"):
        inner = inner[: -len(".gz")]
    if "." not in inner:
        inner = Path(_gzip_name(raw) or inner).name
    yield SourceFile(name, inner, content)


def expand_archives(files: Iterable[tuple[str, bytes]], limits: ArchiveLimits = DEFAULT_LIMITS) -> Iterator[SourceFile]:
    """Uploaded files as given, with every zip among them replaced by its members and every gzipped file by
    what it holds."""
    for name, raw in files:
        if is_zip(raw):
            yield from _zip_members(io.BytesIO(raw), name, limits)
        elif is_gzip(raw):
            yield from _gunzipped(name, raw, limits)
        else:
            yield SourceFile(name, Path(name).name, raw)


def check_archives(files: Iterable[tuple[str, bytes]], limits: ArchiveLimits = DEFAULT_LIMITS) -> None:
    """Check every zip and gzip among uploaded files against ``limits`` (before they are stored for later)."""
    for name, raw in files:
        if is_zip(raw):
            check_archive(io.BytesIO(raw), name, limits)
        elif is_gzip(raw):
            check_gzip(raw, name, limits)
