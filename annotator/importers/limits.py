"""What the database can hold, read from the models: the one place readers check records against.

A record that passes ``check_record`` can be written: every string fits its column, holds no NUL
(PostgreSQL refuses it in text and in jsonb) and no lone surrogate (it cannot be encoded as
UTF-8), every integer fits its column, and source metadata is plain JSON that is neither nested
deeper than ``MAX_NESTING`` nor holds a non-finite number. Each failure is an ``InputError``
naming the file, the record and the field, like any other import error.

Archives (zips of DBDC logs, the NLPCC workbook, uploaded runs) are opened with the limits the
settings give (``archive_limits``).
"""

from __future__ import annotations

import math

from django.conf import settings
from django.db.backends.base.operations import BaseDatabaseOperations

from annotator.models import Dialogue, GoldCount, Judgement, Membership, Post
from scoring.errors import N_, InputError
from scoring.files import ArchiveLimits

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
MAX_NESTING = 64  # levels of lists and objects in source metadata


def archive_limits() -> ArchiveLimits:
    """The limits for opening zips, from the settings (``ARCHIVE_MAX_*``)."""
    return ArchiveLimits(
        max_members=settings.ARCHIVE_MAX_MEMBERS,
        max_total_bytes=settings.ARCHIVE_MAX_BYTES,
        max_ratio=settings.ARCHIVE_MAX_RATIO,
    )


def text_problem(value: str, max_length: int | None = None) -> str | None:
    """Why ``value`` cannot be stored in a text column, or None.

    >>> text_problem("a\\x00b")
    'contains a NUL character (at position 1)'
    >>> text_problem("x" * 41, 40)
    'is 41 characters long; at most 40 fit'
    """
    if "\x00" in value:
        return f"contains a NUL character (at position {value.index(chr(0))})"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"contains a lone surrogate (U+{ord(value[exc.start]):04X} at position {exc.start}), not valid Unicode"
    if max_length is not None and len(value) > max_length:
        return f"is {len(value)} characters long; at most {max_length} fit"
    return None


def check_text(value: str, *, file: str, record: str | None, field: str, max_length: int | None = None) -> str:
    problem = text_problem(value, max_length)
    if problem:
        raise InputError(file, problem, record=record, field=field)
    return value


def check_int(value: int, bounds: tuple[int, int], *, file: str, record: str | None, field: str) -> int:
    low, high = bounds
    if not low <= value <= high:
        raise InputError(
            file,
            N_("%(value)s is outside %(low)s..%(high)s"),
            record=record,
            field=field,
            params={"value": value, "low": low, "high": high},
        )
    return value


def check_json(value, *, file: str, record: str | None, field: str) -> None:
    """Plain, storable JSON: strings and keys as ``check_text``, finite numbers, at most ``MAX_NESTING`` deep.

    Iterative, so a deeply nested value is reported, not a RecursionError.
    """
    stack = [(value, field, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            check_text(item, file=file, record=record, field=path)
        elif isinstance(item, float) and not math.isfinite(item):
            raise InputError(
                file, N_("%(item)s is not a finite number"), record=record, field=path, params={"item": item}
            )
        elif isinstance(item, (dict, list)):
            if depth >= MAX_NESTING:
                raise InputError(
                    file,
                    N_("is nested more than %(MAX_NESTING)s levels deep"),
                    record=record,
                    field=path,
                    params={"MAX_NESTING": MAX_NESTING},
                )
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        raise InputError(file, N_("has a key that is not a string"), record=record, field=path)
                    check_text(key, file=file, record=record, field=f"{path}.{key[:40]!r}")
                    stack.append((child, f"{path}.{key[:40]}", depth + 1))
            else:
                stack.extend((child, f"{path}[{i}]", depth + 1) for i, child in enumerate(item))
        elif not (item is None or isinstance(item, (bool, int, float))):
            raise InputError(
                file, N_("%(type)s is not JSON"), record=record, field=path, params={"type": type(item).__name__}
            )


def check_record(parsed: ParsedDialogue) -> ParsedDialogue:
    """Every value of a parsed dialogue fits the database (see the module's docstring)."""
    file = parsed.file
    record = parsed.external_id
    problem = text_problem(record, EXTERNAL_ID)
    if problem:  # the id itself cannot name the record: show its start
        raise InputError(file, problem, record=repr(record[:40].replace("\x00", "\\x00")), field="id")
    check_text(parsed.language, file=file, record=record, field="language", max_length=LANGUAGE)
    check_json(parsed.source_meta, file=file, record=record, field="metadata")
    for i, post in enumerate(parsed.posts):
        check_text(post.speaker, file=file, record=record, field=f"posts[{i}].speaker", max_length=SPEAKER)
        check_text(post.text, file=file, record=record, field=f"posts[{i}].text")
        if post.source_turn_index is not None:
            check_int(post.source_turn_index, TURN_INDEX, file=file, record=record, field=f"posts[{i}].turn-index")
        check_json(post.source_meta, file=file, record=record, field=f"posts[{i}]")
    for j in parsed.judgements:
        check_text(j.annotator, file=file, record=record, field=f"{j.field} (annotator)", max_length=ANNOTATOR_KEY)
        check_text(j.value, file=file, record=record, field=j.field, max_length=VALUE)
        check_int(j.unit, UNIT, file=file, record=record, field=j.field)
        if j.extra is not None:  # the fields beside the value: named from the value's parent (its annotation)
            check_json(j.extra, file=file, record=record, field=j.field.rsplit(".", 1)[0])
    for g in parsed.gold_counts:
        check_int(g.count, COUNT, file=file, record=record, field=g.field)
        check_int(g.n_annotators, COUNT, file=file, record=record, field=g.field)
    return parsed
