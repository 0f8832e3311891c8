"""An archive's document out of its zip: within the archive limits, decoded, its format and version checked.

What the document holds is checked field by field as it is restored (``evaluation.archive.restore``),
through ``scoring.input``.
"""

from __future__ import annotations

import io
import zipfile

from annotator.importers.limits import archive_limits
from evaluation.archive import ARCHIVE_FORMAT, ARCHIVE_MEMBER, READABLE_VERSIONS
from scoring.errors import N_
from scoring.files import ZIP_ERRORS, check_listing
from scoring.input import Record, load_json


def archive_member(raw: bytes, display: str) -> bytes:
    """The bytes of the archive's ``archive.json``, read from the zip ``raw`` within the archive limits."""
    archive_file = Record(display)
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except ZIP_ERRORS as exc:
        raise archive_file.error(N_("not a project archive (a zip): %(exc)s"), exc=exc) from None
    with archive:
        check_listing(archive.infolist(), display, archive_limits())
        try:
            return archive.read(ARCHIVE_MEMBER)
        except KeyError:
            message = N_("has no %(ARCHIVE_MEMBER)s; is it a project archive?")
            raise archive_file.error(message, ARCHIVE_MEMBER=ARCHIVE_MEMBER) from None
        except ZIP_ERRORS as exc:
            member = Record(f"{display}:{ARCHIVE_MEMBER}")
            raise member.error(N_("cannot be read from the zip: %(exc)s"), exc=exc) from None


def archive_document(raw: bytes, display: str) -> dict:
    """The archive's JSON document from zip bytes, of the format and a version this instance reads
    (``READABLE_VERSIONS``: the current one and every earlier one)."""
    document = load_json(archive_member(raw, display), f"{display}:{ARCHIVE_MEMBER}")
    archive_file = Record(display)
    if not isinstance(document, dict) or document.get("format") != ARCHIVE_FORMAT:
        message = N_("not a project archive (expected format %(ARCHIVE_FORMAT)s)")
        raise archive_file.error(message, "format", ARCHIVE_FORMAT=repr(ARCHIVE_FORMAT))
    if document.get("version") not in READABLE_VERSIONS or isinstance(document.get("version"), bool):
        message = N_("archive version %(found)s; this version reads %(ARCHIVE_VERSION)s")
        found = repr(document.get("version"))
        readable = ", ".join(map(str, READABLE_VERSIONS))
        raise archive_file.error(message, "version", found=found, ARCHIVE_VERSION=readable)
    return document
