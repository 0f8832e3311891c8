"""File names built from text users chose (dialogue ids, run names): safe as zip members and in
``Content-Disposition`` headers.

A name keeps letters (any script), digits and ``. _ - + ( ) @ ,`` and spaces; everything else -
path separators, control characters (CR, LF), quotes, ``: * ? < > |`` - becomes ``_``, leading
and trailing dots and spaces go (no ``..``, no hidden files, no absolute paths), and an empty
result takes a fallback.

>>> safe_filename("../../../../tmp/x")
'tmp_x'
>>> safe_filename('evil\\r\\nX-Injected: 1')
'evil_X-Injected_ 1'
>>> safe_filename("/etc/x.log.json")
'etc_x.log.json'
>>> unique_names(["a", "a", "a-2"], ".log.json")
['a.log.json', 'a-2.log.json', 'a-2-2.log.json']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from django.utils.http import content_disposition_header

MAX_LENGTH = 120
_UNSAFE = re.compile(r"[^\w.\-+()@, ]+")


def safe_filename(text: str, *, fallback: str = "file") -> str:
    """``text`` as one safe path component (no separators, no leading dots, no control characters)."""
    cleaned = _UNSAFE.sub("_", unicodedata.normalize("NFC", str(text)))
    cleaned = re.sub(r"_+", "_", cleaned).strip(" ._")[:MAX_LENGTH].strip(" .")
    return cleaned or fallback


def unique_names(stems: Iterable[str], suffix: str) -> list[str]:
    """``safe_filename(stem) + suffix`` for each stem, numbered ``-2``, ``-3``... where they would repeat."""
    used: set[str] = set()
    names = []
    for stem in stems:
        base = safe_filename(stem)
        name, n = f"{base}{suffix}", 1
        while name.lower() in used:
            n += 1
            name = f"{base}-{n}{suffix}"
        used.add(name.lower())
        names.append(name)
    return names


def attachment(filename: str) -> str:
    """A ``Content-Disposition: attachment`` value for ``filename`` (made safe first), by Django's helper
    (``filename*`` in UTF-8 for names outside ASCII)."""
    return content_disposition_header(as_attachment=True, filename=safe_filename(filename, fallback="download"))
