"""STC-3 / DialEval dialogue JSON: a list of ``{"id", "turns", "annotations"?}``.

A turn is an utterance block: ``{"sender": "customer"|"helpdesk", "utterances": [post, ...]}``.
Each annotation (``{"quality": {"A", "S", "E"}, "nugget": [label per turn]}``) becomes the
judgements of the imported annotator at that position (``"1"``, ``"2"``, ...).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from scoring.errors import N_
from scoring.input import Record, load_json

from .base import ParsedDialogue, ParsedJudgement, ParsedPost

SENDERS = ("customer", "helpdesk")


def read_stc3(path: Path, *, display: str, language: str) -> Iterator[ParsedDialogue]:
    source = Record(display)
    data = load_json(path.read_bytes(), display)  # a byte order mark is allowed
    if not isinstance(data, list):
        raise source.error(N_("expected a JSON list of dialogues"))
    for index, record in enumerate(data):
        yield parse_stc3_dialogue(record, index=index, display=display, language=language)


def parse_stc3_dialogue(record: object, *, index: int, display: str, language: str) -> ParsedDialogue:
    if not isinstance(record, dict):
        raise Record(display).error(N_("record %(index)s is not an object"), f"[{index}]", index=index)
    external_id = str(Record(display, f"#{index}").field(record, "id", (str, int)))
    at = Record(display, external_id)
    turns = at.field(record, "turns", list)
    if not turns:
        raise at.error(N_("has no turns"), "turns")
    parsed = ParsedDialogue(
        file=display,
        external_id=external_id,
        posts=_posts(at, turns),
        language=language,
        source_meta={"format": "stc3", "annotations": "annotations" in record},
    )
    if "annotations" in record:
        for a, annotation in enumerate(at.field(record, "annotations", list)):
            parsed.judgements.extend(_judgements(at, annotation, str(a + 1), f"annotations[{a}]", len(turns)))
    return parsed


def _posts(at: Record, turns: list) -> list[ParsedPost]:
    posts: list[ParsedPost] = []
    senders: list[str] = []
    for t, turn in enumerate(turns):
        path = f"turns[{t}]"
        sender = at.field(turn, "sender", str, path)
        if sender not in SENDERS:
            raise at.error(
                N_("unknown sender %(sender)s (expected customer or helpdesk)"), f"{path}.sender", sender=repr(sender)
            )
        if senders and senders[-1] == sender:
            raise at.error(
                N_("turns %(t_1)s and %(t)s are both by %(sender)s; a turn is an utterance block"),
                f"{path}.sender",
                t_1=t - 1,
                t=t,
                sender=sender,
            )
        senders.append(sender)
        utterances = at.items(turn, "utterances", str, path)
        if not utterances:
            raise at.error(N_("is empty"), f"{path}.utterances")
        posts.extend(ParsedPost(speaker=sender, text=text, source_turn_index=t) for text in utterances)
    return posts


def _judgements(at: Record, annotation, annotator: str, path: str, n_turns: int) -> Iterator[ParsedJudgement]:
    """The judgements of one annotation: its quality scores, then its nugget label per turn."""
    quality = at.field(annotation, "quality", dict, path)
    for key, value in quality.items():
        if not isinstance(value, int) or isinstance(value, bool):
            raise at.error(N_("expected an integer score, got %(value)s"), f"{path}.quality.{key}", value=repr(value))
        yield ParsedJudgement(annotator, key, 0, str(value), f"{path}.quality.{key}")
    nuggets = at.field(annotation, "nugget", list, path)
    if len(nuggets) != n_turns:
        raise at.error(N_("%(len)s nugget labels for %(len2)s turns"), f"{path}.nugget", len=len(nuggets), len2=n_turns)
    for t, label in enumerate(nuggets):
        if not isinstance(label, str):
            raise at.error(
                N_("expected a label string, got %(type)s"), f"{path}.nugget[{t}]", type=type(label).__name__
            )
        yield ParsedJudgement(annotator, "nugget", t, label, f"{path}.nugget[{t}]")
