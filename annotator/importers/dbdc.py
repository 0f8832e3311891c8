"""DBDC3 ``*.log.json``: one dialogue per file, breakdown labels per system turn.

Every field the importer does not model (``speaker-id``, ``time``, ``comment``...) is kept
so that the export reproduces the source. The system is the folder the log is in
(``annotator.importers.systems``): ``speaker-id`` is the human user's id. A file that labels
some turns records which ones
(``ParsedPost.annotated``): those are the dialogue's units (``annotator.presets.UnitRule``);
the others, such as the opening system prompt of the English logs, are not asked about. A
file without labels is a new collection.
"""

from __future__ import annotations

from collections.abc import Iterator

from scoring.errors import N_
from scoring.input import Record, load_json, texts_fit

from .base import InputError, ParsedDialogue, ParsedJudgement, ParsedPost
from .limits import ANNOTATOR_KEY
from .systems import dbdc_system

DEFAULT_ANNOTATION_EXTRA = {"comment": "", "ungrammatical-sentence": ""}
TURN_FIELDS = ("turn-index", "speaker", "utterance", "annotations")


def parse_dbdc_dialogue(raw: bytes, *, display: str, language: str, relative_path: str) -> ParsedDialogue:
    record = load_json(raw, display)
    if not isinstance(record, dict):
        raise Record(display).error(N_("expected a JSON object with dialogue-id and turns"))
    external_id = str(Record(display).field(record, "dialogue-id", (str, int)))
    at = Record(display, external_id)
    turns = at.field(record, "turns", list)
    if not turns:
        raise at.error(N_("has no turns"), "turns")
    fields = {k: v for k, v in record.items() if k not in ("dialogue-id", "turns")}
    meta = {"format": "dbdc", "file": relative_path, "fields": fields, "keys": list(record.keys())}
    system = dbdc_system(relative_path)  # the folder: ``speaker-id`` is the human user's, not a system
    if system:
        meta["system"] = system
    parsed = ParsedDialogue(file=display, external_id=external_id, posts=[], language=language, source_meta=meta)
    labelled = any(isinstance(t, dict) and t.get("annotations") for t in turns)
    judgements = parsed.judgements
    for p, turn in enumerate(turns):
        path = f"turns[{p}]"
        turn_index = at.field(turn, "turn-index", int, path)
        speaker = at.field(turn, "speaker", str, path)
        utterance = at.field(turn, "utterance", str, path)
        annotations = at.field(turn, "annotations", list, path)
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
        judgements.extend(_judgement(at, annotation, p, path, a) for a, annotation in enumerate(annotations))
    annotators = [j.annotator for j in parsed.judgements]
    if not texts_fit(annotators, ANNOTATOR_KEY):  # checked at once; one by one to name the first culprit
        for j in parsed.judgements:
            at.check_text(j.annotator, f"{j.field.rsplit('.', 1)[0]}.annotator-id", max_length=ANNOTATOR_KEY)
    return parsed


def _judgement(at: Record, annotation, unit: int, turn: str, a: int) -> ParsedJudgement:
    """The annotation's label; its annotator's id is checked with the dialogue's others (``texts_fit``).

    The usual annotation (a dict of a string id, a string label and the two empty fields every DBDC3 file has)
    is read without a look at each field's kind; anything else through ``Record.field``, which names the field.
    """
    if type(annotation) is dict:
        annotator, label = annotation.get("annotator-id"), annotation.get("breakdown")
        if (
            type(annotator) is str
            and type(label) is str
            and len(annotation) == 4
            and annotation.get("comment") == ""
            and annotation.get("ungrammatical-sentence") == ""
        ):
            return ParsedJudgement(annotator, "breakdown", unit, label, f"{turn}.annotations[{a}].breakdown")
    path = f"{turn}.annotations[{a}]"
    annotator = annotation.get("annotator-id") if type(annotation) is dict else None
    if type(annotator) is not str:
        annotator = str(at.field(annotation, "annotator-id", (str, int), path))
    label = (
        annotation["breakdown"]
        if type(annotation.get("breakdown")) is str
        else at.field(annotation, "breakdown", str, path)
    )
    extra = {k: v for k, v in annotation.items() if k not in ("annotator-id", "breakdown")}
    extra = None if extra == DEFAULT_ANNOTATION_EXTRA else extra
    return ParsedJudgement(annotator, "breakdown", unit, label, f"{path}.breakdown", extra)


def iter_dbdc_members(members: Iterator[tuple[str, str, bytes]], *, language: str) -> Iterator[ParsedDialogue]:
    """``members`` yields (display name, path relative to the source root, bytes) per file."""
    for display, relative, raw in members:
        if not relative.endswith(".log.json"):
            raise InputError(display, N_("is not a DBDC *.log.json file; remove it from the collection"))
        yield parse_dbdc_dialogue(raw, display=display, language=language, relative_path=relative)
