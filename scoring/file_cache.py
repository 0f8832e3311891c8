"""What is read from a large input file, kept between processes until the file changes.

A gold file is scored against many runs (every system of a shared task, every checkpoint of one), and reading it
is most of the work of scoring a run from the command line: STC-3 Chinese is 19 MB of JSON, a tenth of a second
to parse and as long to count, where its counts are 0.2 MB. ``cached`` keeps the counts in the user's cache folder
under the file's identity (its resolved path, size, modification time in nanoseconds, inode and device, as
``make`` and Python's own bytecode cache trust a file's time and size); a changed file is read again. The stored
form is plain arrays (``STC3Gold.to_bytes``), never pickled objects: a cache file that is damaged or not ours is
read again from the source, never run.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
APP = "dialeval-studio"


def cache_folder() -> Path:
    """``$XDG_CACHE_HOME/dialeval-studio`` (``~/.cache/dialeval-studio`` when the variable is not set)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / APP


def cached(
    path: Path,
    kind: str,
    build: Callable[[bytes], T],
    dump: Callable[[T], bytes],
    load: Callable[[bytes], T],
    *,
    folder: Path | None,
) -> T:
    """``build(path's bytes)``, or what an earlier process stored for the same file (``load``); None ``folder``
    reads the file every time. ``build``'s errors go to the caller and nothing is stored then; a cache that cannot
    be read or written is the same as none.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     source = Path(tmp, "gold.json"); _ = source.write_text("[1, 2]")
    ...     built = []
    ...     def build(raw):
    ...         built.append(raw)
    ...         return raw.upper()
    ...     runs = [cached(source, "test", build, bytes, bytes, folder=Path(tmp, "cache")) for _ in range(2)]
    >>> runs, len(built)
    ([b'[1, 2]', b'[1, 2]'], 1)
    """
    if folder is None:
        return build(path.read_bytes())
    stat = path.stat()
    key = f"{kind}\0{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ino}\0{stat.st_dev}\n".encode()
    file = folder / f"{kind}-{zlib.crc32(key):08x}"
    try:
        stored = file.read_bytes()
        if stored.startswith(key):
            return load(stored[len(key) :])
    except (OSError, ValueError):
        pass
    value = build(path.read_bytes())
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        partial = file.with_name(f"{file.name}.{os.getpid()}.partial")
        partial.write_bytes(key + dump(value))
        os.replace(partial, file)  # whole or not at all, for a process reading it at the same time
    except OSError:
        pass
    return value
