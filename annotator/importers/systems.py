"""Which field of each source format names the system a dialogue comes from, and the system of a dialogue.

A system is the dialogue system (or model) whose turns were judged, never a person: DBDC3's ``speaker-id`` is
the human user's id, not a system, and STC-3 / DialEval files name no system at all (helpdesk dialogues
between people). The importers record the system in ``Dialogue.source_meta["system"]`` from the field this
table names, and the study report says which field that was; dialogues imported before the importers
recorded it are read the same way from what they kept (a DBDC log's folder in ``source_meta["file"]``).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from scoring.errors import N_

# format -> where its files name the system (None: the format names none)
SYSTEM_FIELDS: dict[str, str | None] = {
    "dbdc": N_("the folder each log is in, without its dialogue count (CIC_50/ gives CIC)"),  # as DBDC3 names it
    "nlpcc": N_("the system column of the spreadsheet"),
    "jsonl": N_("meta.system of each record"),
    "stc3": None,
}
# DBDC3's folders: the system's name in capitals, and the number of dialogues after an underscore in English
_SYSTEM_FOLDER = re.compile(r"^([A-Z][A-Z0-9]{1,15})(?:_\d+)?$")


def dbdc_system(relative_path: str) -> str | None:
    """The system of a DBDC log from the folder it is in: DBDC3 keeps each system's logs in a folder named
    after it in capitals, with the number of dialogues in English (``CIC_50``, ``IRIS_100``; the Japanese
    ``DCM``, ``DIT``, ``IRS``). Any other folder (``en``, ``eval``, ``logs``) names no system.

    >>> dbdc_system("en/eval/CIC_50/CIC0201.log.json"), dbdc_system("DCM/1502868469.log.json")
    ('CIC', 'DCM')
    >>> dbdc_system("CIC0201.log.json") is None, dbdc_system("en/bd1.log.json") is None
    (True, True)
    """
    parent = PurePosixPath(str(relative_path).replace("\\", "/")).parent.name
    found = _SYSTEM_FOLDER.match(parent)
    return found.group(1) if found else None


def dialogue_system(meta) -> str | None:
    """The system a dialogue comes from, as its importer recorded it (None where the source names none).

    >>> dialogue_system({"format": "dbdc", "file": "YI_50/YI0001.log.json", "fields": {"speaker-id": "u7"}})
    'YI'
    >>> dialogue_system({"format": "stc3"}) is None
    True
    """
    if not isinstance(meta, dict):
        return None
    system = meta.get("system")
    if system in (None, "") and meta.get("format") == "jsonl":
        system = (meta.get("meta") or {}).get("system")
    if system in (None, "") and meta.get("format") == "dbdc" and meta.get("file"):
        system = dbdc_system(meta["file"])
    return str(system) if system not in (None, "") else None


def system_field(meta) -> str | None:
    """Where the dialogue's format names its system (English, marked for translation), None if it names none."""
    return SYSTEM_FIELDS.get(meta.get("format")) if isinstance(meta, dict) else None
