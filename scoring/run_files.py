"""Reading and validating system runs: the STC-3/DialEval submission and DBDC ``*.labels.json``.

Readers check every value against the gold data they are given (the ids, the turns, the
label sets) and raise ``InputError`` naming the file, the dialogue id and the field.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import orjson

from scoring.errors import N_, InputError


def _load_json(raw: bytes | str, source: str):
    """The JSON document in ``raw``, parsed by orjson (several times faster on a run of thousands of dialogues).

    orjson reads a subset of what the standard library reads (not ``NaN``, ``Infinity``, integers beyond
    64 bits, lone surrogates) and gives terser messages: anything it refuses is read again by ``json``, so
    what is accepted, the values read and the messages stay those of the standard library.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(source, N_("malformed JSON: %(exc)s"), params={"exc": exc}) from None
    except RecursionError:
        raise InputError(source, N_("malformed JSON: nested too deeply to read")) from None


def _distribution(
    obj, labels: Sequence[str], *, source: str, record: str, field: str, key_of=lambda label: label
) -> list[float]:
    if not isinstance(obj, dict):
        raise InputError(source, N_("expected an object of label probabilities"), record=record, field=field)
    keys = [key_of(label) for label in labels]
    out = [obj.get(k, 0.0) for k in keys]
    # the common case in one pass; the detailed diagnosis only when something is wrong
    if (
        len(obj) <= len(keys)
        and all(type(v) in (int, float) and v >= 0 and math.isfinite(v) for v in out)
        and obj.keys() <= set(keys)
        and 0 < sum(out) < math.inf
    ):
        return [float(v) for v in out]
    for key in obj:
        if key not in keys:
            raise InputError(
                source,
                N_("unknown label %(key)s (expected %(join)s)"),
                record=record,
                field=f"{field}.{key}",
                params={"key": repr(key), "join": ", ".join(sorted(keys))},
            )
    for key, value in zip(keys, out):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InputError(
                source,
                N_("probability %(value)s is not a number"),
                record=record,
                field=f"{field}.{key}",
                params={"value": repr(value)},
            )
        if value < 0:
            raise InputError(
                source,
                N_("probability %(value)s is negative"),
                record=record,
                field=f"{field}.{key}",
                params={"value": repr(value)},
            )
    if sum(out) > 0:  # every value finite, and their sum is not
        raise InputError(
            source, N_("probabilities too large: their sum is not a finite number"), record=record, field=field
        )
    raise InputError(source, N_("probabilities sum to zero"), record=record, field=field)


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
    if not (np.isfinite(values).all() and (values >= 0).all() and (sums > 0).all() and np.isfinite(sums).all()):
        return None  # not a number, negative, all zero, or a sum too large to hold
    return values


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
    """Parse an STC-3/DialEval submission: ``[{"id", "quality"?: {KEY: {value: p}}, "nugget"?: [...]}]``.

    ``gold_turns`` maps each gold dialogue id to the speaker of each turn ("customer" /
    "helpdesk"); ``strict`` requires every gold dialogue to be in the run.
    """
    data = _load_json(raw, source)
    if not isinstance(data, list):
        raise InputError(source, N_("expected a JSON list of dialogues"))
    dialogues: list[str] = []
    # (dialogue position, turn) and the raw distribution objects per group, validated together below
    quality_rows: dict[str, tuple[list[int], list]] = {k: ([], []) for k in quality_keys}
    rows = {"customer": ([], [], []), "helpdesk": ([], [], [])}
    labels = {"customer": customer_labels, "helpdesk": helpdesk_labels}
    seen = set()
    for i, record in enumerate(data):
        if not isinstance(record, dict) or not isinstance(record.get("id"), (str, int)):
            raise InputError(source, N_("expected an object with an id"), field=f"[{i}]")
        did = str(record["id"])
        if did not in gold_turns:
            raise InputError(source, N_("is not in the gold data"), record=did, field="id")
        if did in seen:
            raise InputError(source, N_("appears twice"), record=did, field="id")
        seen.add(did)
        position = len(dialogues)
        dialogues.append(did)
        quality = record.get("quality", {})
        if not isinstance(quality, dict):
            raise InputError(source, N_("expected an object"), record=did, field="quality")
        for key, dist in quality.items():
            if key not in quality_rows:
                raise InputError(
                    source,
                    N_("unknown quality criterion %(key)s"),
                    record=did,
                    field=f"quality.{key}",
                    params={"key": repr(key)},
                )
            quality_rows[key][0].append(position)
            quality_rows[key][1].append(dist)
        if "nugget" in record:
            nuggets = record["nugget"]
            speakers = gold_turns[did]
            if not isinstance(nuggets, list) or len(nuggets) != len(speakers):
                n = len(nuggets) if isinstance(nuggets, list) else "no"
                raise InputError(
                    source,
                    N_("%(n)s turn distributions for %(len)s turns"),
                    record=did,
                    field="nugget",
                    params={"n": n, "len": len(speakers)},
                )
            for t, (dist, speaker) in enumerate(zip(nuggets, speakers)):
                rows[speaker][0].append(position)
                rows[speaker][1].append(t)
                rows[speaker][2].append(dist)
    groups = [(quality_rows[k][1], quality_scale) for k in quality_keys] + [
        (rows[s][2], labels[s]) for s in ("customer", "helpdesk")
    ]
    estimates = [_distributions(objs, scale) for objs, scale in groups]
    if any(e is None for e in estimates):  # diagnose the first bad distribution, in the file's order
        for record in data:
            did = str(record["id"])
            for key, dist in record.get("quality", {}).items():
                _distribution(dist, quality_scale, source=source, record=did, field=f"quality.{key}")
            for t, (dist, speaker) in enumerate(zip(record.get("nugget", []), gold_turns[did])):
                _distribution(dist, labels[speaker], source=source, record=did, field=f"nugget[{t}]")
        raise InputError(source, N_("has a distribution that is not valid"))  # not reached: the two checks agree
    quality_estimates = dict(zip(quality_keys, estimates))
    nugget_estimates = {"customer": estimates[-2], "helpdesk": estimates[-1]}
    if strict:
        missing = [d for d in gold_turns if d not in seen]
        if missing:
            raise InputError(
                source,
                N_("%(len)s gold dialogues are missing from the run (strict mode)"),
                record=missing[0],
                field="id",
                params={"len": len(missing)},
            )

    def nugget_rows(speaker: str) -> NuggetRows:
        d, t, _p = rows[speaker]
        return NuggetRows(np.array(d, dtype=np.int64), np.array(t, dtype=np.int64), nugget_estimates[speaker])

    quality_arrays = {
        k: (np.array(ix, dtype=np.int64), quality_estimates[k].reshape(-1, len(quality_scale)))
        for k, (ix, _ps) in quality_rows.items()
    }
    return STC3Run(dialogues, quality_arrays, nugget_rows("customer"), nugget_rows("helpdesk"))


DBDC_LABELS = ("O", "T", "X")
PROBABILITY_TOLERANCE = 1e-6  # |prob-O + prob-T + prob-X - 1| allowed in a DBDC labels file


@dataclass(frozen=True)
class DBDCGold:
    """The gold data a DBDC run is read and scored against.

    ``turns[d]``: the annotated system turns of dialogue ``d`` (turn indices, in order);
    ``dialogue_turns[d]``: every turn index of ``d`` (a dialogue may be here without gold yet);
    ``counts[(d, t)]``: the (O, T, X) label counts of annotated turn ``t``.
    """

    turns: dict[str, list[int]]
    dialogue_turns: dict[str, list[int]]
    counts: dict[tuple[str, int], np.ndarray]


def read_dbdc_gold(files: Iterable[tuple[str, bytes | str]]) -> DBDCGold:
    """Gold counts from DBDC ``*.log.json`` files as the DBDC3 evaluation script reads them.

    A turn is annotated when it is not a user turn (speaker ``U``) and its ``annotations`` list
    is not empty (the script skips the others, such as the opening system prompt of DBDC3's
    English logs); its counts are the numbers of O, T and X labels.
    """
    turns: dict[str, list[int]] = {}
    dialogue_turns: dict[str, list[int]] = {}
    counts: dict[tuple[str, int], np.ndarray] = {}
    for name, raw in files:
        record = _load_json(raw, name)
        if not isinstance(record, dict) or not isinstance(record.get("dialogue-id"), (str, int)):
            raise InputError(name, N_("expected an object with dialogue-id"), field="dialogue-id")
        did = str(record["dialogue-id"])
        if did in dialogue_turns:
            raise InputError(name, N_("appears twice"), record=did, field="dialogue-id")
        entries = record.get("turns")
        if not isinstance(entries, list):
            raise InputError(name, N_("is missing"), record=did, field="turns")
        turns[did], dialogue_turns[did] = [], []
        for k, turn in enumerate(entries):
            field = f"turns[{k}]"
            if not isinstance(turn, dict) or not _is_int(turn.get("turn-index")):
                raise InputError(name, N_("needs an integer turn-index"), record=did, field=f"{field}.turn-index")
            annotations = turn.get("annotations", [])
            if not isinstance(annotations, list):
                raise InputError(name, N_("expected a list"), record=did, field=f"{field}.annotations")
            index = turn["turn-index"]
            dialogue_turns[did].append(index)
            if turn.get("speaker") == "U" or not annotations:
                continue
            row = np.zeros(3, dtype=np.int64)
            for a, annotation in enumerate(annotations):
                label = annotation.get("breakdown") if isinstance(annotation, dict) else None
                if label not in DBDC_LABELS:
                    raise InputError(
                        name,
                        N_("unknown label %(label)s (expected O, T or X)"),
                        record=did,
                        field=f"{field}.annotations[{a}].breakdown",
                        params={"label": repr(label)},
                    )
                row[DBDC_LABELS.index(label)] += 1
            turns[did].append(index)
            counts[(did, index)] = row
    return DBDCGold(turns, dialogue_turns, counts)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class DBDCRun:
    """One row per annotated system turn: dialogue id, turn index, predicted label and distribution.

    ``ignored`` lists the labels read but not scored, as (dialogue id, turn index): labels of
    turns the gold does not annotate (turn index -1 for a whole dialogue without gold yet).
    """

    dialogue: list[str]
    turn: np.ndarray
    label: np.ndarray
    p: np.ndarray
    ignored: tuple[tuple[str, int], ...] = ()

    @property
    def notes(self) -> list[str]:
        """What a reader of the scores should know about how the files were read."""
        turns = [(d, t) for d, t in self.ignored if t >= 0]
        dialogues = [d for d, t in self.ignored if t < 0]
        notes = []
        if turns:
            d, t = turns[0]
            notes.append(
                f"ignored the labels of {len(turns)} turns the gold does not annotate (first: dialogue {d}, "
                f"turn {t}); only annotated system turns are scored, as in the DBDC3 evaluation script"
            )
        if dialogues:
            notes.append(
                f"ignored {len(dialogues)} dialogues that have no gold labels yet (first: dialogue {dialogues[0]})"
            )
        return notes


def _probability(first: dict, label: str, *, name: str, did: str, field: str, index: int) -> float:
    key = f"prob-{label}"
    if key not in first:
        raise InputError(
            name,
            N_("turn %(index)s: %(key)s is missing"),
            record=did,
            field=f"{field}.{key}",
            params={"index": index, "key": key},
        )
    value = first[key]
    # the DBDC3 script reads float(value): numbers, and strings that spell one
    number = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        with contextlib.suppress(ValueError):
            number = float(value)
    if number is None or not math.isfinite(number):
        raise InputError(
            name,
            N_("turn %(index)s: %(key)s %(value)s is not a number"),
            record=did,
            field=f"{field}.{key}",
            params={"index": index, "key": key, "value": repr(value)},
        )
    if not 0.0 <= number <= 1.0:
        raise InputError(
            name,
            N_("turn %(index)s: %(key)s %(value)s is outside [0, 1]"),
            record=did,
            field=f"{field}.{key}",
            params={"index": index, "key": key, "value": repr(value)},
        )
    return number


def read_dbdc_run(
    files: Iterable[tuple[str, bytes | str]],
    *,
    gold_turns: Mapping[str, Sequence[int]],
    dialogue_turns: Mapping[str, Collection[int]] | None = None,
    strict: bool = False,
) -> DBDCRun:
    """Parse DBDC ``<dialogue-id>.labels.json`` files (``files`` yields (name, content)).

    ``gold_turns`` maps each dialogue with gold labels to its annotated system turns;
    ``dialogue_turns`` (optional) maps every dialogue of the collection to all its turn indices.

    Accepted, as the DBDC3 evaluation script accepts them: a file labelling exactly the annotated
    turns, and a file that also labels other turns (the opening prompt, user turns): those labels
    are ignored and listed in ``DBDCRun.ignored`` / ``notes``. Only ``labels[0]`` of a turn is read.
    Refused with ``InputError`` naming the file, the dialogue and the turn index: an annotated
    turn without a label, a turn labelled twice or out of order (the script reads the turns in
    order), a turn index the dialogue does not have, a ``breakdown`` label other than O, T or X,
    a missing probability, a probability outside [0, 1], and probabilities whose sum differs
    from 1 by more than 1e-6. ``strict`` also requires a file for every gold dialogue.
    """
    dialogue, turn, label, probs = [], [], [], []
    ignored: list[tuple[str, int]] = []
    seen = set()
    names = []
    for name, raw in files:
        names.append(name)
        record = _load_json(raw, name)
        if not isinstance(record, dict) or "dialogue-id" not in record:
            raise InputError(name, N_("expected an object with dialogue-id"), field="dialogue-id")
        did = str(record["dialogue-id"])
        known = dialogue_turns is not None and did in dialogue_turns
        if did not in gold_turns and not known:
            raise InputError(name, N_("is not in the gold data"), record=did, field="dialogue-id")
        if did in seen:
            raise InputError(name, N_("appears twice"), record=did, field="dialogue-id")
        seen.add(did)
        turns = record.get("turns")
        if not isinstance(turns, list):
            raise InputError(name, N_("is missing"), record=did, field="turns")
        if did not in gold_turns:
            ignored.append((did, -1))
            continue
        annotated = set(gold_turns[did])
        existing = None if dialogue_turns is None else set(dialogue_turns.get(did, annotated))
        covered: set[int] = set()
        listed: set[int] = set()
        previous = None
        for k, entry in enumerate(turns):
            field = f"turns[{k}]"
            if not isinstance(entry, dict) or not _is_int(entry.get("turn-index")):
                raise InputError(name, N_("needs an integer turn-index"), record=did, field=f"{field}.turn-index")
            index = entry["turn-index"]
            if existing is not None and index not in existing:
                raise InputError(
                    name,
                    N_("turn %(index)s is not a turn of this dialogue"),
                    record=did,
                    field=f"{field}.turn-index",
                    params={"index": index},
                )
            if previous is not None and index <= previous:
                what = "is labelled twice" if index in listed else f"comes after turn {previous}"
                raise InputError(
                    name,
                    N_("turn %(index)s %(what)s: list each turn once, in order (the DBDC3 script reads them in order)"),
                    record=did,
                    field=f"{field}.turn-index",
                    params={"index": index, "what": what},
                )
            previous = index
            listed.add(index)
            if index not in annotated:
                ignored.append((did, index))
                continue
            labels = entry.get("labels")
            if not isinstance(labels, list) or not labels or not isinstance(labels[0], dict):
                raise InputError(
                    name,
                    N_("turn %(index)s: needs one labels object"),
                    record=did,
                    field=f"{field}.labels",
                    params={"index": index},
                )
            first = labels[0]
            if first.get("breakdown") not in DBDC_LABELS:
                raise InputError(
                    name,
                    N_("turn %(index)s: unknown label %(get)s (expected O, T or X)"),
                    record=did,
                    field=f"{field}.labels[0].breakdown",
                    params={"index": index, "get": repr(first.get("breakdown"))},
                )
            where = {"name": name, "did": did, "field": f"{field}.labels[0]", "index": index}
            p = [_probability(first, lab, **where) for lab in DBDC_LABELS]
            total = p[0] + p[1] + p[2]
            if abs(total - 1.0) > PROBABILITY_TOLERANCE:
                raise InputError(
                    name,
                    N_(
                        "turn %(index)s: prob-O + prob-T + prob-X = %(total)s, not 1 (within %(PROBABILITY_TOLERANCE)s)"
                    ),
                    record=did,
                    field=f"{field}.labels[0]",
                    params={
                        "index": index,
                        "total": repr(total),
                        "PROBABILITY_TOLERANCE": format(PROBABILITY_TOLERANCE, "g"),
                    },
                )
            dialogue.append(did)
            turn.append(index)
            label.append(DBDC_LABELS.index(first["breakdown"]))
            probs.append(p)
            covered.add(index)
        missing = sorted(annotated - covered)
        if missing:
            raise InputError(
                name,
                N_("annotated system turn %(missing)s has no label"),
                record=did,
                field="turns",
                params={"missing": missing[0]},
            )
    if strict:
        absent = [d for d in gold_turns if d not in seen]
        if absent:
            raise InputError(
                "run",
                N_("%(len)s gold dialogues are missing (strict mode)"),
                record=absent[0],
                params={"len": len(absent)},
            )
    if not dialogue:
        raise InputError(", ".join(names)[:200] or "run", N_("labels no annotated system turn of the gold data"))
    return DBDCRun(
        dialogue,
        np.array(turn, dtype=np.int64),
        np.array(label, dtype=np.int64),
        np.array(probs, dtype=float).reshape(-1, 3),
        tuple(ignored),
    )
