"""The gold counts of DBDC ``*.log.json`` files, read as the DBDC3 evaluation script reads them."""

from __future__ import annotations

import json  # noqa: F401  (the example below)
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from scoring.errors import N_
from scoring.input import Record, load_json

DBDC_LABELS = ("O", "T", "X")


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

    Examples
    --------
    >>> log = {"dialogue-id": "d1", "turns": [
    ...     {"turn-index": 0, "speaker": "S", "annotations": []},
    ...     {"turn-index": 1, "speaker": "U"},
    ...     {"turn-index": 2, "speaker": "S", "annotations": [{"breakdown": "O"}, {"breakdown": "X"}]}]}
    >>> gold = read_dbdc_gold([("d1.log.json", json.dumps(log))])
    >>> gold.turns, gold.dialogue_turns, gold.counts[("d1", 2)].tolist()
    ({'d1': [2]}, {'d1': [0, 1, 2]}, [1, 0, 1])
    """
    gold = DBDCGold({}, {}, {})
    for name, raw in files:
        record = load_json(raw, name)
        file = Record(name)
        at = file.at(file.field(record, "dialogue-id", (str, int)))
        if at.key in gold.dialogue_turns:
            raise at.error(N_("appears twice"), "dialogue-id")
        gold.turns[at.key], gold.dialogue_turns[at.key] = [], []
        for k, turn in enumerate(at.field(record, "turns", list)):
            _read_turn(gold, at, turn, f"turns[{k}]")
    return gold


def _read_turn(gold: DBDCGold, at: Record, turn, field: str) -> None:
    index = at.field(turn, "turn-index", int, field)
    annotations = at.field(turn, "annotations", list, field) if "annotations" in turn else []
    gold.dialogue_turns[at.key].append(index)
    if turn.get("speaker") == "U" or not annotations:
        return
    row = np.zeros(3, dtype=np.int64)
    for a, annotation in enumerate(annotations):
        label = annotation.get("breakdown") if isinstance(annotation, dict) else None
        if label not in DBDC_LABELS:
            message = N_("unknown label %(label)s (expected O, T or X)")
            raise at.error(message, f"{field}.annotations[{a}].breakdown", label=repr(label))
        row[DBDC_LABELS.index(label)] += 1
    gold.turns[at.key].append(index)
    gold.counts[(at.key, index)] = row
