"""Plain JSON lines for new collections: one ``{"id", "turns": [{"speaker", "text"}]}`` per line.

Optional per dialogue: ``"language"`` and ``"meta"`` (any object, kept as source metadata).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from scoring.errors import N_
from scoring.input import Record, read_json_lines

from .base import ParsedDialogue, ParsedPost


def read_jsonl(path: Path, *, display: str, language: str) -> Iterator[ParsedDialogue]:
    with open(path, "rb") as fh:
        for line, record in read_json_lines(fh, display):
            yield parse_jsonl_dialogue(line, record, language=language)


def parse_jsonl_dialogue(line: Record, record, *, language: str) -> ParsedDialogue:
    """One line's dialogue; errors name the line until the dialogue's id is read, then the dialogue."""
    at = line.at(line.field(record, "id", (str, int)))
    turns = at.field(record, "turns", list)
    if not turns:
        raise at.error(N_("has no turns"), "turns")
    posts = []
    for t, turn in enumerate(turns):
        speaker = at.field(turn, "speaker", str, f"turns[{t}]")
        if not speaker.strip():
            raise at.error(N_("is empty"), f"turns[{t}].speaker")
        posts.append(ParsedPost(speaker=speaker, text=at.field(turn, "text", str, f"turns[{t}]"), source_turn_index=t))
    return ParsedDialogue(
        file=line.file,
        external_id=at.id,
        posts=posts,
        language=at.field(record, "language", str) if "language" in record else language,
        source_meta={"format": "jsonl", "meta": at.field(record, "meta", dict) if "meta" in record else {}},
    )
