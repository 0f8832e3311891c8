"""Choosing a reader for a path: a file, a folder or a zip."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

from .base import ImportFailure, ParsedDialogue
from .dbdc import iter_dbdc_members
from .jsonl import read_jsonl
from .nlpcc import read_nlpcc
from .stc3 import read_stc3

FORMATS = ("auto", "stc3", "dbdc", "nlpcc", "jsonl")
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
        return "jsonl"
    if name.endswith(".json"):
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096).lstrip()
        if head.startswith("["):
            return "stc3"
        if head.startswith("{") and "dialogue-id" in head:
            return "dbdc"
    raise ImportFailure(str(path), "cannot tell the format; pass --format stc3|dbdc|nlpcc|jsonl")


def _skipped(relative: str) -> bool:
    """Folder entries and operating-system litter that is never part of a collection."""
    parts = relative.split("/")
    return relative.endswith("/") or any(p.startswith(".") or p == "__MACOSX" for p in parts)


def _dbdc_members(path: Path) -> Iterator[tuple[str, str, bytes]]:
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            relative = file.relative_to(path).as_posix()
            if not _skipped(relative):
                yield str(file), relative, file.read_bytes()
    elif path.name.lower().endswith(".zip"):
        try:
            archive = zipfile.ZipFile(path)
        except zipfile.BadZipFile as exc:
            raise ImportFailure(str(path), f"not a readable zip: {exc}") from None
        with archive:
            for info in sorted(archive.infolist(), key=lambda i: i.filename):
                if info.is_dir() or _skipped(info.filename):
                    continue
                yield f"{path}:{info.filename}", info.filename, archive.read(info)
    else:
        yield str(path), path.name, path.read_bytes()


def read_source(path: Path, fmt: str = "auto", language: str | None = None) -> Iterator[ParsedDialogue]:
    """Parsed dialogues from one path, in source order."""
    if not path.exists():
        raise ImportFailure(str(path), "does not exist")
    if fmt == "auto":
        fmt = detect_format(path)
    lang = guess_language(path) if language is None else language
    display = str(path)
    if fmt == "stc3":
        return read_stc3(path, display=display, language=lang)
    if fmt == "dbdc":
        return iter_dbdc_members(_dbdc_members(path), language=lang)
    if fmt == "nlpcc":
        return read_nlpcc(path, display=display, language=lang)
    if fmt == "jsonl":
        return read_jsonl(path, display=display, language=lang)
    raise ImportFailure(display, f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def read_sources(paths: list[Path], fmt: str = "auto", language: str | None = None) -> Iterator[ParsedDialogue]:
    for path in paths:
        yield from read_source(Path(path), fmt, language)


__all__ = ["FORMATS", "detect_format", "guess_language", "read_source", "read_sources"]
