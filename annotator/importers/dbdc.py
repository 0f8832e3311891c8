"""DBDC3 ``*.log.json``: one dialogue per file, breakdown labels per system turn.

Every field the importer does not model (``speaker-id``, ``time``, ``comment``...) is kept
so that the export reproduces the source. A file that labels some turns records which ones
(``ParsedPost.annotated``): those are the dialogue's units (``annotator.presets.UnitRule``);
the others, such as the opening system prompt of the English logs, are not asked about. A
file without labels is a new collection.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from scoring.errors import N_

from .base import InputError, ParsedDialogue, ParsedJudgement, ParsedPost, require
from .limits import ANNOTATOR_KEY, check_text

DEFAULT_ANNOTATION_EXTRA = {"comment": "", "ungrammatical-sentence": ""}
TURN_FIELDS = ("turn-index", "speaker", "utterance", "annotations")


def parse_dbdc_dialogue(raw: bytes, *, display: str, language: str, relative_path: str) -> ParsedDialogue:
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(
            display,
            N_("is not UTF-8 text (%(reason)s at byte %(start)s); save it as UTF-8"),
            params={"reason": exc.reason, "start": exc.start},
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(display, N_("malformed JSON: %(exc)s"), params={"exc": exc}) from None
    except RecursionError:
        raise InputError(display, N_("malformed JSON: nested too deeply to read")) from None
    if not isinstance(record, dict):
        raise InputError(display, N_("expected a JSON object with dialogue-id and turns"))
    external_id = str(require(record, "dialogue-id", (str, int), file=display, record=None, path=""))
    turns = require(record, "turns", list, file=display, record=external_id, path="")
    if not turns:
        raise InputError(display, N_("has no turns"), record=external_id, field="turns")
    fields = {k: v for k, v in record.items() if k not in ("dialogue-id", "turns")}
    parsed = ParsedDialogue(
        file=display,
        external_id=external_id,
        posts=[],
        language=language,
        source_meta={"format": "dbdc", "file": relative_path, "fields": fields, "keys": list(record.keys())},
    )
    labelled = any(isinstance(t, dict) and t.get("annotations") for t in turns)
    for p, turn in enumerate(turns):
        path = f"turns[{p}]"
        turn_index = require(turn, "turn-index", int, file=display, record=external_id, path=path)
        speaker = require(turn, "speaker", str, file=display, record=external_id, path=path)
        utterance = require(turn, "utterance", str, file=display, record=external_id, path=path)
        annotations = require(turn, "annotations", list, file=display, record=external_id, path=path)
        meta = {k: v for k, v in turn.items() if k not in TURN_FIELDS}
        parsed.posts.append(
            ParsedPost(
                speaker=speaker,
                text=utterance,
                source_turn_index=turn_index,
                source_meta=meta,
                annotated=bool(annotations) if labelled else None,
            )
        )
        for a, annotation in enumerate(annotations):
            apath = f"{path}.annotations[{a}]"
            annotator = require(annotation, "annotator-id", (str, int), file=display, record=external_id, path=apath)
            annotator = check_text(
                str(annotator),
                file=display,
                record=external_id,
                field=f"{apath}.annotator-id",
                max_length=ANNOTATOR_KEY,
            )
            label = require(annotation, "breakdown", str, file=display, record=external_id, path=apath)
            extra = {k: v for k, v in annotation.items() if k not in ("annotator-id", "breakdown")}
            parsed.judgements.append(
                ParsedJudgement(
                    annotator,
                    "breakdown",
                    p,
                    label,
                    f"{apath}.breakdown",
                    None if extra == DEFAULT_ANNOTATION_EXTRA else extra,
                )
            )
    return parsed


def iter_dbdc_members(members: Iterator[tuple[str, str, bytes]], *, language: str) -> Iterator[ParsedDialogue]:
    """``members`` yields (display name, path relative to the source root, bytes) per file."""
    for display, relative, raw in members:
        if not relative.endswith(".log.json"):
            raise InputError(display, N_("is not a DBDC *.log.json file; remove it from the collection"))
        yield parse_dbdc_dialogue(raw, display=display, language=language, relative_path=relative)
