"""STC-3 / DialEval dialogue JSON: a list of ``{"id", "turns", "annotations"?}``.

A turn is an utterance block: ``{"sender": "customer"|"helpdesk", "utterances": [post, ...]}``.
Each annotation (``{"quality": {"A", "S", "E"}, "nugget": [label per turn]}``) becomes the
judgements of the imported annotator at that position (``"1"``, ``"2"``, ...).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from scoring.errors import N_

from .base import InputError, ParsedDialogue, ParsedJudgement, ParsedPost, require

SENDERS = ("customer", "helpdesk")


def read_stc3(path: Path, *, display: str, language: str) -> Iterator[ParsedDialogue]:
    try:
        with open(path, encoding="utf-8-sig") as fh:  # a byte order mark is allowed
            data = json.load(fh)
    except json.JSONDecodeError as exc:
        raise InputError(display, N_("malformed JSON: %(exc)s"), params={"exc": exc}) from None
    except UnicodeDecodeError as exc:
        raise InputError(
            display,
            N_("is not UTF-8 text (%(reason)s at byte %(start)s); save it as UTF-8"),
            params={"reason": exc.reason, "start": exc.start},
        ) from None
    except RecursionError:
        raise InputError(display, N_("malformed JSON: nested too deeply to read")) from None
    if not isinstance(data, list):
        raise InputError(display, N_("expected a JSON list of dialogues"))
    for index, record in enumerate(data):
        yield parse_stc3_dialogue(record, index=index, display=display, language=language)


def parse_stc3_dialogue(record: object, *, index: int, display: str, language: str) -> ParsedDialogue:
    if not isinstance(record, dict):
        raise InputError(display, N_("record %(index)s is not an object"), field=f"[{index}]", params={"index": index})
    raw_id = require(record, "id", (str, int), file=display, record=f"#{index}", path="")
    external_id = str(raw_id)
    turns = require(record, "turns", list, file=display, record=external_id, path="")
    if not turns:
        raise InputError(display, N_("has no turns"), record=external_id, field="turns")
    posts: list[ParsedPost] = []
    senders: list[str] = []
    for t, turn in enumerate(turns):
        sender = require(turn, "sender", str, file=display, record=external_id, path=f"turns[{t}]")
        if sender not in SENDERS:
            raise InputError(
                display,
                N_("unknown sender %(sender)s (expected customer or helpdesk)"),
                record=external_id,
                field=f"turns[{t}].sender",
                params={"sender": repr(sender)},
            )
        if senders and senders[-1] == sender:
            raise InputError(
                display,
                N_("turns %(t_1)s and %(t)s are both by %(sender)s; a turn is an utterance block"),
                record=external_id,
                field=f"turns[{t}].sender",
                params={"t_1": t - 1, "t": t, "sender": sender},
            )
        senders.append(sender)
        utterances = require(turn, "utterances", list, file=display, record=external_id, path=f"turns[{t}]")
        if not utterances:
            raise InputError(display, N_("is empty"), record=external_id, field=f"turns[{t}].utterances")
        for u, text in enumerate(utterances):
            if not isinstance(text, str):
                raise InputError(
                    display,
                    N_("expected a string, got %(type)s"),
                    record=external_id,
                    field=f"turns[{t}].utterances[{u}]",
                    params={"type": type(text).__name__},
                )
            posts.append(ParsedPost(speaker=sender, text=text, source_turn_index=t))
    parsed = ParsedDialogue(
        file=display,
        external_id=external_id,
        posts=posts,
        language=language,
        source_meta={"format": "stc3", "annotations": "annotations" in record},
    )
    if "annotations" in record:
        annotations = require(record, "annotations", list, file=display, record=external_id, path="")
        for a, annotation in enumerate(annotations):
            annotator = str(a + 1)
            path = f"annotations[{a}]"
            quality = require(annotation, "quality", dict, file=display, record=external_id, path=path)
            for key, value in quality.items():
                if not isinstance(value, int) or isinstance(value, bool):
                    raise InputError(
                        display,
                        N_("expected an integer score, got %(value)s"),
                        record=external_id,
                        field=f"{path}.quality.{key}",
                        params={"value": repr(value)},
                    )
                parsed.judgements.append(ParsedJudgement(annotator, key, 0, str(value), f"{path}.quality.{key}"))
            nuggets = require(annotation, "nugget", list, file=display, record=external_id, path=path)
            if len(nuggets) != len(turns):
                raise InputError(
                    display,
                    N_("%(len)s nugget labels for %(len2)s turns"),
                    record=external_id,
                    field=f"{path}.nugget",
                    params={"len": len(nuggets), "len2": len(turns)},
                )
            for t, label in enumerate(nuggets):
                if not isinstance(label, str):
                    raise InputError(
                        display,
                        N_("expected a label string, got %(type)s"),
                        record=external_id,
                        field=f"{path}.nugget[{t}]",
                        params={"type": type(label).__name__},
                    )
                parsed.judgements.append(ParsedJudgement(annotator, "nugget", t, label, f"{path}.nugget[{t}]"))
    return parsed
