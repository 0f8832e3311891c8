"""Plain JSON lines for new collections: one ``{"id", "turns": [{"speaker", "text"}]}`` per line.

Optional per dialogue: ``"language"`` and ``"meta"`` (any object, kept as source metadata).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from scoring.errors import N_

from .base import InputError, ParsedDialogue, ParsedPost, require


def read_jsonl(path: Path, *, display: str, language: str) -> Iterator[ParsedDialogue]:
    with open(path, "rb") as fh:
        for line_number, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                message = f"is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8"
                raise InputError(display, message, field=f"line {line_number}") from None
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(
                    display, N_("malformed JSON: %(exc)s"), field=f"line {line_number}", params={"exc": exc}
                ) from None
            except RecursionError:
                raise InputError(
                    display, N_("malformed JSON: nested too deeply to read"), field=f"line {line_number}"
                ) from None
            record_id = f"line {line_number}"
            external_id = str(require(record, "id", (str, int), file=display, record=record_id, path=""))
            turns = require(record, "turns", list, file=display, record=external_id, path="")
            if not turns:
                raise InputError(display, N_("has no turns"), record=external_id, field="turns")
            posts = []
            for t, turn in enumerate(turns):
                speaker = require(turn, "speaker", str, file=display, record=external_id, path=f"turns[{t}]")
                text = require(turn, "text", str, file=display, record=external_id, path=f"turns[{t}]")
                if not speaker.strip():
                    raise InputError(display, N_("is empty"), record=external_id, field=f"turns[{t}].speaker")
                posts.append(ParsedPost(speaker=speaker, text=text, source_turn_index=t))
            meta = record.get("meta", {})
            if not isinstance(meta, dict):
                raise InputError(display, N_("expected an object"), record=external_id, field="meta")
            dialogue_language = record.get("language", language)
            if not isinstance(dialogue_language, str):
                raise InputError(display, N_("expected a string"), record=external_id, field="language")
            yield ParsedDialogue(
                file=display,
                external_id=external_id,
                posts=posts,
                language=dialogue_language,
                source_meta={"format": "jsonl", "meta": meta},
            )
