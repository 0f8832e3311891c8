"""What the database can hold, read from the models: the one place readers check records against.

A record that passes ``check_record`` can be written: every string fits its column, holds no NUL
(PostgreSQL refuses it in text and in jsonb) and no lone surrogate (it cannot be encoded as
UTF-8), every integer fits its column, and source metadata is plain JSON that is neither nested
deeper than ``scoring.input.MAX_NESTING`` nor holds a non-finite number. Each failure is an ``InputError``
naming the file, the record and the field, like any other import error.

Archives (zips of DBDC logs, the NLPCC workbook, uploaded runs) are opened with the limits the
settings give (``archive_limits``).
"""

from __future__ import annotations

from django.conf import settings
from django.db.backends.base.operations import BaseDatabaseOperations

from annotator.models import Candidate, Dialogue, GoldCount, Judgement, Membership, Post
from scoring.files import ArchiveLimits
from scoring.input import Record, text_problem, texts_fit

from .base import ParsedDialogue


def _max_length(model, name: str) -> int:
    return model._meta.get_field(name).max_length


def _int_range(model, name: str) -> tuple[int, int]:
    """The portable range of an integer column (PostgreSQL's ``integer`` for IntegerField)."""
    return BaseDatabaseOperations.integer_field_ranges[model._meta.get_field(name).get_internal_type()]


EXTERNAL_ID = _max_length(Dialogue, "external_id")
LANGUAGE = _max_length(Dialogue, "language")
SPEAKER = _max_length(Post, "speaker")
ANNOTATOR_KEY = _max_length(Membership, "source_key")
VALUE = _max_length(Judgement, "value")
TURN_INDEX = _int_range(Post, "source_turn_index")
UNIT = _int_range(Judgement, "unit")
COUNT = _int_range(GoldCount, "count")
SYSTEM = _max_length(Candidate, "system")


def archive_limits() -> ArchiveLimits:
    """The limits for opening zips, from the settings (``ARCHIVE_MAX_*``)."""
    return ArchiveLimits(
        max_members=settings.ARCHIVE_MAX_MEMBERS,
        max_total_bytes=settings.ARCHIVE_MAX_BYTES,
        max_ratio=settings.ARCHIVE_MAX_RATIO,
    )


def check_record(parsed: ParsedDialogue) -> ParsedDialogue:
    """Every value of a parsed dialogue fits the database (see the module's docstring)."""
    problem = text_problem(parsed.external_id, EXTERNAL_ID)
    if problem:  # the id itself cannot name the record: show its start
        shown = repr(parsed.external_id[:40].replace("\x00", "\\x00"))
        raise Record(parsed.file, shown).error(problem[0], "id", **problem[1])
    at = Record(parsed.file, parsed.external_id)
    at.check_text(parsed.language, "language", max_length=LANGUAGE)
    at.check_json(parsed.source_meta, "metadata")
    for i, post in enumerate(parsed.posts):
        at.check_text(post.speaker, f"posts[{i}].speaker", max_length=SPEAKER)
        at.check_text(post.text, f"posts[{i}].text")
        if post.source_turn_index is not None:
            at.check_int(post.source_turn_index, f"posts[{i}].turn-index", TURN_INDEX)
        at.check_json(post.source_meta, f"posts[{i}]")
    _check_judgements(at, parsed)
    for c, candidate in enumerate(parsed.candidates):
        at.check_text(candidate.system, f"candidates[{c}].system", max_length=SYSTEM)
        at.check_text(candidate.text, f"candidates[{c}].text")
    for g in parsed.gold_counts:
        at.check_int(g.count, g.field, COUNT)
        at.check_int(g.n_annotators, g.field, COUNT)
    return parsed


def _check_judgements(at: Record, parsed: ParsedDialogue) -> None:
    """The judgements' values checked all at once (a collection holds hundreds of thousands); only when that
    finds a problem, one by one, so that the error names the first culprit."""
    judgements = parsed.judgements
    low, high = UNIT
    if (
        texts_fit([j.annotator for j in judgements], ANNOTATOR_KEY)
        and texts_fit([j.value for j in judgements], VALUE)
        and all(low <= j.unit <= high for j in judgements)
    ):
        judgements = [j for j in judgements if j.extra is not None]
        checked = True
    else:
        checked = False
    for j in judgements:
        if not checked:
            at.check_text(j.annotator, f"{j.field} (annotator)", max_length=ANNOTATOR_KEY)
            at.check_text(j.value, j.field, max_length=VALUE)
            at.check_int(j.unit, j.field, UNIT)
        if j.extra is not None:  # the fields beside the value: named from the value's parent (its annotation)
            at.check_json(j.extra, j.field.rsplit(".", 1)[0])
