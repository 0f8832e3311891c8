"""DBDC ``<dialogue-id>.labels.json`` runs: a breakdown label and its distribution per system turn.

Accepted, as the DBDC3 evaluation script accepts them: a file labelling exactly the annotated turns,
and a file that also labels other turns (the opening prompt, user turns): those labels are ignored
and listed in ``DBDCRun.ignored`` / ``notes``. Only ``labels[0]`` of a turn is read. Refused with
``InputError`` naming the file, the dialogue and the turn index: an annotated turn without a label,
a turn labelled twice or out of order (the script reads the turns in order), a turn index the
dialogue does not have, a ``breakdown`` label other than O, T or X, a missing probability, a
probability outside [0, 1], and probabilities whose sum differs from 1 by more than
``PROBABILITY_TOLERANCE`` (the rule of every run format: ``scoring.run_files.distribution``).
"""

from __future__ import annotations

import contextlib
import json  # noqa: F401  (the example below)
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from scoring.errors import N_, InputError
from scoring.input import Record, load_json
from scoring.run_files.dbdc_gold import DBDC_LABELS
from scoring.run_files.distribution import sum_error, sums_to_one


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


@dataclass
class _Rows:
    """The turns read so far, as ``DBDCRun`` holds them, and the dialogues seen."""

    dialogue: list[str] = field(default_factory=list)
    turn: list[int] = field(default_factory=list)
    label: list[int] = field(default_factory=list)
    p: list[list[float]] = field(default_factory=list)
    ignored: list[tuple[str, int]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)


def _probability(first: dict, label: str, *, at: Record, field: str, index: int) -> float:
    key = f"prob-{label}"
    if key not in first:
        raise at.error(N_("turn %(index)s: %(key)s is missing"), f"{field}.{key}", index=index, key=key)
    value = first[key]
    # the DBDC3 script reads float(value): numbers, and strings that spell one
    number = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        with contextlib.suppress(ValueError):
            number = float(value)
    where = {"index": index, "key": key, "value": repr(value)}
    if number is None or not math.isfinite(number):
        raise at.error(N_("turn %(index)s: %(key)s %(value)s is not a number"), f"{field}.{key}", **where)
    if not 0.0 <= number <= 1.0:
        raise at.error(N_("turn %(index)s: %(key)s %(value)s is outside [0, 1]"), f"{field}.{key}", **where)
    return number


def _label(entry: dict, index: int, *, at: Record, field: str) -> tuple[int, list[float]]:
    """The breakdown label (its position in O, T, X) and the distribution of an annotated turn's ``labels[0]``."""
    labels = entry.get("labels")
    if not isinstance(labels, list) or not labels or not isinstance(labels[0], dict):
        raise at.error(N_("turn %(index)s: needs one labels object"), f"{field}.labels", index=index)
    first = labels[0]
    if first.get("breakdown") not in DBDC_LABELS:
        message = N_("turn %(index)s: unknown label %(get)s (expected O, T or X)")
        raise at.error(message, f"{field}.labels[0].breakdown", index=index, get=repr(first.get("breakdown")))
    p = [_probability(first, lab, at=at, field=f"{field}.labels[0]", index=index) for lab in DBDC_LABELS]
    total = p[0] + p[1] + p[2]
    if not sums_to_one(total):
        raise sum_error(at, f"{field}.labels[0]", total, turn=index)
    return DBDC_LABELS.index(first["breakdown"]), p


def _turn_index(entry, previous: int | None, listed: set[int], existing, *, at: Record, field: str) -> int:
    """A listed turn's index: an integer, a turn of the dialogue, after the turns listed before it."""
    index = at.field(entry, "turn-index", int, field)
    if existing is not None and index not in existing:
        message = N_("turn %(index)s is not a turn of this dialogue")
        raise at.error(message, f"{field}.turn-index", index=index)
    if previous is not None and index <= previous:
        message = (
            N_("turn %(index)s is labelled twice: list each turn once, in order (the DBDC3 script reads them in order)")
            if index in listed
            else N_(
                "turn %(index)s comes after turn %(previous)s: list each turn once, in order (the DBDC3 script "
                "reads them in order)"
            )
        )
        raise at.error(message, f"{field}.turn-index", index=index, previous=previous)
    return index


def _read_turns(rows: _Rows, turns: list, annotated: set[int], existing, at: Record) -> None:
    """The labels of one dialogue's turns, every annotated turn labelled once, in order."""
    covered: set[int] = set()
    listed: set[int] = set()
    previous = None
    for k, entry in enumerate(turns):
        index = _turn_index(entry, previous, listed, existing, at=at, field=f"turns[{k}]")
        previous = index
        listed.add(index)
        if index not in annotated:
            rows.ignored.append((at.key, index))
            continue
        label, p = _label(entry, index, at=at, field=f"turns[{k}]")
        rows.dialogue.append(at.key)
        rows.turn.append(index)
        rows.label.append(label)
        rows.p.append(p)
        covered.add(index)
    missing = sorted(annotated - covered)
    if missing:
        raise at.error(N_("annotated system turn %(missing)s has no label"), "turns", missing=missing[0])


def _read_file(rows: _Rows, name: str, raw, gold_turns, dialogue_turns) -> None:
    record = load_json(raw, name)
    file = Record(name)
    at = file.at(file.field(record, "dialogue-id", (str, int)))
    known = dialogue_turns is not None and at.key in dialogue_turns
    if at.key not in gold_turns and not known:
        raise at.error(N_("is not in the gold data"), "dialogue-id")
    if at.key in rows.seen:
        raise at.error(N_("appears twice"), "dialogue-id")
    rows.seen.add(at.key)
    turns = at.field(record, "turns", list)
    if at.key not in gold_turns:
        rows.ignored.append((at.key, -1))
        return
    annotated = set(gold_turns[at.key])
    existing = None if dialogue_turns is None else set(dialogue_turns.get(at.key, annotated))
    _read_turns(rows, turns, annotated, existing, at)


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
    What is accepted and refused: the module's docstring. ``strict`` also requires a file for every
    gold dialogue.

    Examples
    --------
    >>> labels = {"dialogue-id": "d1", "turns": [{"turn-index": 1, "labels": [
    ...     {"breakdown": "X", "prob-O": 0.1, "prob-T": 0.2, "prob-X": 0.7}]}]}
    >>> run = read_dbdc_run([("d1.labels.json", json.dumps(labels))], gold_turns={"d1": [1]})
    >>> run.dialogue, run.turn.tolist(), run.label.tolist(), run.p.tolist()
    (['d1'], [1], [2], [[0.1, 0.2, 0.7]])
    """
    rows = _Rows()
    names = []
    for name, raw in files:
        names.append(name)
        _read_file(rows, name, raw, gold_turns, dialogue_turns)
    absent = [d for d in gold_turns if d not in rows.seen] if strict else []
    if absent:
        message = N_("%(len)s gold dialogues are missing (strict mode)")
        raise InputError("run", message, record=absent[0], params={"len": len(absent)})
    if not rows.dialogue:
        raise InputError(", ".join(names)[:200] or "run", N_("labels no annotated system turn of the gold data"))
    return DBDCRun(
        rows.dialogue,
        np.array(rows.turn, dtype=np.int64),
        np.array(rows.label, dtype=np.int64),
        np.array(rows.p, dtype=float).reshape(-1, 3),
        tuple(rows.ignored),
    )
