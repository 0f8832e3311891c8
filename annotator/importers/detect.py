"""Choosing a reader for a path: a file, a folder or a zip."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from scoring.errors import N_
from scoring.files import walk_path

from .base import InputError, ParsedDialogue
from .chat import read_chat
from .dbdc import iter_dbdc_members
from .jsonl import read_jsonl
from .limits import archive_limits, check_record
from .nlpcc import read_nlpcc
from .pairwise import read_pairwise
from .stc3 import read_stc3

FORMATS = ("auto", "stc3", "dbdc", "nlpcc", "jsonl", "chat", "pairwise")
NOT_UTF8_JSON = N_("is not UTF-8 text, which JSON files must be; save it as UTF-8 and upload it again")
LANGUAGE_HINTS = {"en": "en", "ja": "ja", "cn": "zh", "zh": "zh"}


def guess_language(path: Path) -> str:
    """A language code from the path (``train_data_cn.json`` -> zh, ``dbdc3/en/eval`` -> en)."""
    for part in reversed(path.parts):
        tokens = part.replace(".", "_").replace("-", "_").split("_")
        for token in reversed(tokens):
            if token.lower() in LANGUAGE_HINTS:
                return LANGUAGE_HINTS[token.lower()]
    return ""


def detect_format(path: Path) -> str:
    name = path.name.lower()
    if path.is_dir() or name.endswith(".log.json"):
        return "dbdc"
    if name.endswith(".zip"):
        return "dbdc"
    if name.endswith(".xlsx"):
        return "nlpcc"
    if name.endswith(".jsonl"):
        if _first_line_has(path, b'"candidates"'):
            return "pairwise"
        return "chat" if _first_line_has(path, b'"messages"', b'"conversations"') else "jsonl"
    if name.endswith(".json"):
        with open(path, "rb") as fh:
            raw = fh.read(4096)
        try:  # an incremental decoder: the 4096th byte may cut a character in two
            head = codecs.getincrementaldecoder("utf-8")().decode(raw).lstrip("\ufeff \t\r\n")
        except UnicodeDecodeError:
            raise InputError(str(path), NOT_UTF8_JSON) from None
        if head.startswith("["):
            return "stc3"
        if head.startswith("{") and "dialogue-id" in head:
            return "dbdc"
    raise InputError(
        str(path),
        N_(
            "cannot tell which format this file is in; choose its format (STC-3 / DialEval JSON, "
            "DBDC3 *.log.json or a zip of them, NLPCC xlsx, JSON lines, chat transcripts, pairwise JSON lines)"
        ),
    )


def _first_line_has(path: Path, *markers: bytes) -> bool:
    """Whether the first non-blank line of a JSON lines file holds one of ``markers`` (a comparison's
    ``"candidates"``, a chat transcript's ``"messages"``)."""
    with open(path, "rb") as fh:
        for raw in fh:
            if raw.strip():
                return any(marker in raw for marker in markers)
    return False


def read_source(path: Path, fmt: str = "auto", language: str | None = None) -> Iterator[ParsedDialogue]:
    """Parsed dialogues from one path, in source order, each checked against the database's limits."""
    return map(check_record, _read_source(path, fmt, language))


def _read_source(path: Path, fmt: str, language: str | None) -> Iterator[ParsedDialogue]:
    if not path.exists():
        raise InputError(str(path), N_("does not exist"))
    if fmt == "auto":
        fmt = detect_format(path)
    lang = guess_language(path) if language is None else language
    display = str(path)
    if fmt == "stc3":
        return read_stc3(path, display=display, language=lang)
    if fmt == "dbdc":
        return iter_dbdc_members(walk_path(path, archive_limits()), language=lang)
    if fmt == "nlpcc":
        return read_nlpcc(path, display=display, language=lang)
    if fmt == "jsonl":
        return read_jsonl(path, display=display, language=lang)
    if fmt == "chat":
        return read_chat(path, display=display, language=lang)
    if fmt == "pairwise":
        return read_pairwise(path, display=display, language=lang)
    raise InputError(
        display,
        N_("unknown format %(fmt)s; choose one of %(join)s"),
        params={"fmt": repr(fmt), "join": ", ".join(FORMATS)},
    )


def read_sources(paths: list[Path], fmt: str = "auto", language: str | None = None) -> Iterator[ParsedDialogue]:
    for path in paths:
        yield from read_source(Path(path), fmt, language)


__all__ = ["FORMATS", "detect_format", "guess_language", "read_source", "read_sources"]
