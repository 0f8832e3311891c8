"""The STC-3/DialEval submission: ``[{"id", "quality"?: {KEY: {value: p}}, "nugget"?: [{label: p}, ...]}]``.

Every distribution must sum to 1 (``scoring.run_files.distribution``, the rule of every run format).
Every distribution is checked in bulk, column by column (``_distributions``); only when one is not valid
is the file read again, object by object, to name the first bad one (``_distribution``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

import numpy as np

from scoring.errors import N_
from scoring.input import Record, load_json
from scoring.run_files.distribution import sum_error, sums_to_one

SPEAKERS = ("customer", "helpdesk")


@dataclass(frozen=True)
class NuggetRows:
    """One row per turn: the dialogue's position in ``STC3Run.dialogues``, the turn, the estimate."""

    dialogue: np.ndarray
    turn: np.ndarray
    p: np.ndarray


@dataclass(frozen=True)
class STC3Run:
    dialogues: list[str]
    quality: dict[str, tuple[np.ndarray, np.ndarray]]  # criterion -> (dialogue positions, estimates)
    customer: NuggetRows
    helpdesk: NuggetRows


def _distribution(obj, labels: Sequence[str], *, at: Record, field: str) -> list[float]:
    """``obj`` as probabilities over ``labels``, or an ``InputError`` naming what is wrong with it."""
    if not isinstance(obj, dict):
        raise at.error(N_("expected an object of label probabilities"), field)
    keys = list(labels)
    out = [obj.get(k, 0.0) for k in keys]
    # the common case in one pass; the detailed diagnosis only when something is wrong
    if (
        len(obj) <= len(keys)
        and all(type(v) in (int, float) and v >= 0 and math.isfinite(v) for v in out)
        and obj.keys() <= set(keys)
        and sums_to_one(sum(out))
    ):
        return [float(v) for v in out]
    for key in obj:
        if key not in keys:
            message = N_("unknown label %(key)s (expected %(join)s)")
            raise at.error(message, f"{field}.{key}", key=repr(key), join=", ".join(sorted(keys)))
    for key, value in zip(keys, out):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise at.error(N_("probability %(value)s is not a number"), f"{field}.{key}", value=repr(value))
        if value < 0:
            raise at.error(N_("probability %(value)s is negative"), f"{field}.{key}", value=repr(value))
    raise sum_error(at, field, sum(out))


def _distributions(objs: list, labels: Sequence[str]) -> np.ndarray | None:
    """Every object of ``objs`` as a row of probabilities over ``labels``, checked column by column in bulk.

    None if any object is not a valid distribution (``_distribution`` then names it); the common
    case of a valid run costs a few C-level passes instead of a Python call per turn.

    >>> _distributions([{"a": 1}, {"a": 0.5, "b": 0.5}], ["a", "b"]).tolist()
    [[1.0, 0.0], [0.5, 0.5]]
    >>> _distributions([{"a": "1"}], ["a", "b"]) is None
    True
    """
    keys = list(labels)
    if not objs:
        return np.zeros((0, len(keys)))
    if set(map(type, objs)) != {dict} or not {k for obj in objs for k in obj} <= set(keys):
        return None
    columns = [[obj.get(k, 0.0) for obj in objs] for k in keys]
    if any(not set(map(type, column)) <= {int, float} for column in columns):
        return None  # strings, booleans, nulls, lists: never coerced
    values = np.array(columns, dtype=float).T
    with np.errstate(over="ignore"):
        sums = values.sum(axis=1)
    if not (np.isfinite(values).all() and (values >= 0).all() and sums_to_one(sums).all()):
        return None  # not a number, negative, or not summing to 1
    return values


@dataclass
class _Rows:
    """What the records hold, grouped for the bulk checks: dialogue positions, turns and raw distributions."""

    dialogues: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    quality: dict[str, tuple[list[int], list]] = field(default_factory=dict)
    nugget: dict[str, tuple[list[int], list[int], list]] = field(
        default_factory=lambda: {s: ([], [], []) for s in SPEAKERS}
    )


def _read_record(rows: _Rows, record, i: int, *, source: Record, gold_turns: Mapping[str, Sequence[str]]) -> None:
    """Check one dialogue's id and shape and add its distributions to ``rows`` (their values are checked later).

    The common case costs a few dictionary reads: a ``Record`` is made to name a field only when one is wrong.
    """
    did = record.get("id") if type(record) is dict else None
    did = str(did if type(did) in (str, int) else source.field(record, "id", (str, int), f"[{i}]"))
    if did not in gold_turns:
        raise source.at(did).error(N_("is not in the gold data"), "id")
    if did in rows.seen:
        raise source.at(did).error(N_("appears twice"), "id")
    rows.seen.add(did)
    position = len(rows.dialogues)
    rows.dialogues.append(did)
    quality = record.get("quality", {})
    if type(quality) is not dict:
        source.at(did).field(record, "quality", dict)  # raises, naming the field
    for key, dist in quality.items():
        if key not in rows.quality:
            raise source.at(did).error(N_("unknown quality criterion %(key)s"), f"quality.{key}", key=repr(key))
        rows.quality[key][0].append(position)
        rows.quality[key][1].append(dist)
    if "nugget" in record:
        nuggets, speakers = record["nugget"], gold_turns[did]
        if not isinstance(nuggets, list) or len(nuggets) != len(speakers):
            n = len(nuggets) if isinstance(nuggets, list) else "no"
            message = N_("%(n)s turn distributions for %(len)s turns")
            raise source.at(did).error(message, "nugget", n=n, len=len(speakers))
        for t, (dist, speaker) in enumerate(zip(nuggets, speakers)):
            dialogue, turn, objs = rows.nugget[speaker]
            dialogue.append(position)
            turn.append(t)
            objs.append(dist)


def _diagnose(data: list, source: Record, gold_turns, quality_scale, labels: dict[str, Sequence[str]]) -> NoReturn:
    """Raise for the first distribution that is not valid, in the file's order."""
    for record in data:
        at = source.at(record["id"])
        for key, dist in record.get("quality", {}).items():
            _distribution(dist, quality_scale, at=at, field=f"quality.{key}")
        for t, (dist, speaker) in enumerate(zip(record.get("nugget", []), gold_turns[at.key])):
            _distribution(dist, labels[speaker], at=at, field=f"nugget[{t}]")
    raise source.error(N_("has a distribution that is not valid"))  # not reached: the two checks agree


def read_stc3_run(
    raw: bytes | str,
    *,
    source: str,
    gold_turns: Mapping[str, Sequence[str]],
    quality_scale: Sequence[str],
    quality_keys: Sequence[str],
    customer_labels: Sequence[str],
    helpdesk_labels: Sequence[str],
    strict: bool = False,
) -> STC3Run:
    """Parse an STC-3/DialEval submission (see the module's docstring).

    ``gold_turns`` maps each gold dialogue id to the speaker of each turn ("customer" /
    "helpdesk"); ``strict`` requires every gold dialogue to be in the run.
    """
    run = Record(source)
    data = load_json(raw, source)
    if not isinstance(data, list):
        raise run.error(N_("expected a JSON list of dialogues"))
    rows = _Rows(quality={k: ([], []) for k in quality_keys})
    for i, record in enumerate(data):
        _read_record(rows, record, i, source=run, gold_turns=gold_turns)
    labels = {"customer": customer_labels, "helpdesk": helpdesk_labels}
    groups = [(rows.quality[k][1], quality_scale) for k in quality_keys]
    groups += [(rows.nugget[s][2], labels[s]) for s in SPEAKERS]
    found = [_distributions(objs, scale) for objs, scale in groups]
    estimates = [e for e in found if e is not None]
    if len(estimates) < len(found):
        _diagnose(data, run, gold_turns, quality_scale, labels)
    missing = [d for d in gold_turns if d not in rows.seen] if strict else []
    if missing:
        message = N_("%(len)s gold dialogues are missing from the run (strict mode)")
        raise run.at(missing[0]).error(message, "id", len=len(missing))
    quality = {
        k: (np.array(rows.quality[k][0], dtype=np.int64), e.reshape(-1, len(quality_scale)))
        for k, e in zip(quality_keys, estimates)
    }
    customer, helpdesk = (
        NuggetRows(np.array(d, dtype=np.int64), np.array(t, dtype=np.int64), p)
        for (d, t, _objs), p in zip((rows.nugget[s] for s in SPEAKERS), estimates[-2:])
    )
    return STC3Run(rows.dialogues, quality, customer, helpdesk)
