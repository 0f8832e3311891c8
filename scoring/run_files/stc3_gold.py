"""The gold data of an STC-3/DialEval file (the official training or test file with its ``annotations``).

The file is a JSON list of ``{"id", "turns": [{"sender", "utterances"}], "annotations": [{"quality": {"A": 1,
"S": 0, "E": -1}, "nugget": [label per turn]}]}``; the gold data of a dialogue are the counts of the labels its
annotators gave, per quality criterion and per turn, over the STC-3 scales (``QUALITY_SCALE``, ``NUGGET_LABELS``:
the ``stc3`` preset's, as DialEval-1's ``eval.py`` counts them). This is what ``python -m scoring stc3`` scores a run
against without the platform; in the platform the same counts come from the imported judgements.

The common case (a well-formed file of thousands of dialogues, half a million labels) is counted in bulk with
numpy; only when something is wrong is the file walked again, record by record, to name the first problem
(``_diagnose``): the file, the dialogue and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import NoReturn

import numpy as np
import orjson

from scoring.errors import N_
from scoring.input import Record, load_json
from scoring.run_files.stc3 import SPEAKERS, NuggetRows

QUALITY_SCALE = ("-2", "-1", "0", "1", "2")
NUGGET_LABELS = {"customer": ("CNUG0", "CNUG", "CNUG*", "CNaN"), "helpdesk": ("HNUG", "HNUG*", "HNaN")}
_CODES = {label: i for i, label in enumerate(chain(*NUGGET_LABELS.values()))}  # one column per label
_COLUMNS = {"customer": slice(0, 4), "helpdesk": slice(4, 7)}
_FORMAT = "stc3-gold-counts 1"  # of ``STC3Gold.to_bytes``; a new layout gets a new name
_LOW = -2  # the quality scale as the file writes it: the integers -2..2


@dataclass
class STC3Gold:
    """Gold counts of an STC-3 file, as arrays (which ``to_bytes`` and ``from_bytes`` store and read back).

    ``ids``: every dialogue of the file, in order; ``n_turns``: the number of turns of each; ``customer``: per turn
    of the file (dialogue by dialogue), whether the customer sent it; ``keys``: the quality criteria;
    ``annotated``: per dialogue, whether it has annotations; ``quality_counts[k]``: per annotated dialogue, the
    counts over ``QUALITY_SCALE`` of criterion ``keys[k]``; ``turn_counts``: per turn, the counts over every nugget
    label (the customer's, then the helpdesk's), NaN rows for the turns of dialogues without annotations.

    Derived for the run reader and the scorer: ``speakers[d]`` (the sender of each turn of dialogue ``d``) and
    ``quality[key][d]`` (the counts of an annotated dialogue ``d``).
    """

    ids: list[str]
    n_turns: np.ndarray
    customer: np.ndarray
    keys: tuple[str, ...]
    annotated: np.ndarray
    quality_counts: np.ndarray
    turn_counts: np.ndarray
    speakers: dict[str, list[str]] = field(init=False, repr=False)
    quality: dict[str, dict[str, np.ndarray]] = field(init=False, repr=False)
    first_turn: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self):
        names = list(map(("helpdesk", "customer").__getitem__, self.customer.tolist()))
        ends = np.cumsum(self.n_turns).tolist()
        starts = [0, *ends[:-1]]
        self.speakers = {d: names[a:b] for d, a, b in zip(self.ids, starts, ends)}
        self.first_turn = dict(zip(self.ids, starts))
        annotated = [d for d, a in zip(self.ids, self.annotated.tolist()) if a]
        self.quality = {key: dict(zip(annotated, counts)) for key, counts in zip(self.keys, self.quality_counts)}

    def nugget_counts(self, dialogues: list[str], rows: NuggetRows, speaker: str) -> np.ndarray:
        """Counts over ``speaker``'s labels of each row of a run (``STC3Run.customer`` or ``.helpdesk``)."""
        first = np.array([self.first_turn[d] for d in dialogues], dtype=np.int64)
        return self.turn_counts[first[rows.dialogue] + rows.turn][:, _COLUMNS[speaker]]

    def to_bytes(self) -> bytes:
        """The arrays as bytes: a JSON header (ids, criteria, format) and the arrays' raw data."""
        header = orjson.dumps({"format": _FORMAT, "ids": self.ids, "keys": list(self.keys)})
        arrays = (self.n_turns, self.customer, self.annotated, self.quality_counts, self.turn_counts)
        return b"".join([len(header).to_bytes(8, "little"), header, *(a.tobytes() for a in _stored(arrays))])

    @classmethod
    def from_bytes(cls, raw: bytes) -> STC3Gold:
        """What ``to_bytes`` wrote; ``ValueError`` if it is not that (another format, cut short).

        >>> gold = read_stc3_gold(b'[{"id": 7, "turns": [{"sender": "helpdesk"}], '
        ...     b'"annotations": [{"quality": {"A": 0}, "nugget": ["HNUG"]}]}]', source="gold.json")
        >>> again = STC3Gold.from_bytes(gold.to_bytes())
        >>> again.speakers, again.quality["A"]["7"].tolist(), again.turn_counts.tolist()
        ({'7': ['helpdesk']}, [0, 0, 1, 0, 0], [[0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]])
        """
        size = int.from_bytes(raw[:8], "little")
        header = orjson.loads(raw[8 : 8 + size])
        if not isinstance(header, dict) or header.get("format") != _FORMAT:
            raise ValueError("not stored gold counts of this format")
        ids, keys = header["ids"], tuple(header["keys"])
        data, at = memoryview(raw), 8 + size

        def take(dtype, count: int) -> np.ndarray:
            nonlocal at
            end = at + count * np.dtype(dtype).itemsize
            if end > len(raw):
                raise ValueError("stored gold counts cut short")
            array, at = np.frombuffer(data[at:end], dtype=dtype), end
            return array

        n_turns = take(np.int64, len(ids))
        customer, annotated = take(np.bool_, int(n_turns.sum())), take(np.bool_, len(ids))
        width, labels = len(QUALITY_SCALE), len(_CODES)
        quality = take(np.int64, len(keys) * int(annotated.sum()) * width).reshape(len(keys), -1, width)
        turn_counts = take(np.float64, len(customer) * labels).reshape(-1, labels)
        if at != len(raw):
            raise ValueError("stored gold counts too long")
        return cls(ids, n_turns, customer, keys, annotated, quality, turn_counts)


def _stored(arrays):
    """The arrays as ``from_bytes`` reads them: little-endian 64-bit integers, booleans, doubles."""
    n_turns, customer, annotated, quality, turn_counts = arrays
    return (
        np.ascontiguousarray(n_turns, dtype="<i8"),
        np.ascontiguousarray(customer, dtype=np.bool_),
        np.ascontiguousarray(annotated, dtype=np.bool_),
        np.ascontiguousarray(quality, dtype="<i8"),
        np.ascontiguousarray(turn_counts, dtype="<f8"),
    )


def read_stc3_gold(raw: bytes | str, *, source: str) -> STC3Gold:
    """The gold counts of an STC-3 file (see the module's docstring), or an ``InputError`` naming what is wrong.

    Examples
    --------
    >>> import json
    >>> dialogue = {"id": "d1", "turns": [{"sender": "customer", "utterances": ["?"]}],
    ...     "annotations": [{"quality": {"A": 1}, "nugget": ["CNUG0"]}, {"quality": {"A": 2}, "nugget": ["CNaN"]}]}
    >>> gold = read_stc3_gold(json.dumps([dialogue]), source="gold.json")
    >>> gold.speakers, gold.quality["A"]["d1"].tolist(), gold.turn_counts.tolist()
    ({'d1': ['customer']}, [0, 0, 0, 1, 1], [[1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]])
    >>> read_stc3_gold(json.dumps([dict(dialogue, annotations=[{"quality": {"A": 1}, "nugget": ["HNUG"]}])]),
    ...     source="gold.json")
    Traceback (most recent call last):
    ...
    scoring.errors.InputError: gold.json: dialogue d1: field annotations[0].nugget[0]: 'HNUG' is not one of \
CNUG0, CNUG, CNUG*, CNaN
    """
    data = load_json(raw, source)
    try:
        gold = _count(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        gold = None
    if gold is None:
        _diagnose(data, Record(source))
    return gold


def _count(data) -> STC3Gold | None:
    """The gold counts in bulk; None (or an exception) when anything is not as expected."""
    if type(data) is not list or set(map(type, data)) - {dict}:
        return None
    ids = [record["id"] for record in data]
    if set(map(type, ids)) - {str, int} or len(set(map(str, ids))) != len(ids):
        return None
    turns = [record["turns"] for record in data]
    senders = [turn["sender"] for turn in chain.from_iterable(turns)]
    if set(senders) - set(SPEAKERS):
        return None
    n_turns = np.fromiter(map(len, turns), np.int64, count=len(turns))
    annotations = [record["annotations"] for record in data]
    n_annotations = np.fromiter(map(len, annotations), np.int64, count=len(annotations))
    annotations = list(chain.from_iterable(annotations))
    qualities = [annotation["quality"] for annotation in annotations]
    keys = tuple(qualities[0]) if qualities else ()
    if set(map(len, qualities)) - {len(keys)}:
        return None
    columns = [[quality[key] for quality in qualities] for key in keys]  # a missing key: KeyError
    if set(map(type, chain.from_iterable(columns))) - {int}:
        return None  # never coerced: not a float, a boolean or a string
    values = np.array(columns, dtype=np.int64).reshape(len(keys), len(qualities))
    nuggets = [annotation["nugget"] for annotation in annotations]
    lengths = np.fromiter(map(len, nuggets), np.int64, count=len(nuggets))
    if set(map(type, nuggets)) - {list} or (lengths != np.repeat(n_turns, n_annotations)).any():
        return None
    # an unknown label: KeyError
    codes = np.fromiter(map(_CODES.__getitem__, chain.from_iterable(nuggets)), np.int64, count=int(lengths.sum()))
    quality = _quality_counts(values, n_annotations)
    if quality is None:
        return None
    turn_counts = _turn_counts(n_turns, n_annotations, codes)
    customer = np.array([s == "customer" for s in senders], dtype=bool)
    if turn_counts[customer, 4:].any() or turn_counts[~customer, :4].any():
        return None  # a label of the other speaker's scale
    return STC3Gold(list(map(str, ids)), n_turns, customer, keys, n_annotations > 0, quality, turn_counts)


def _quality_counts(values: np.ndarray, n_annotations: np.ndarray) -> np.ndarray | None:
    """Per criterion (a row of ``values``: one value per annotation), per dialogue with annotations, the counts
    over ``QUALITY_SCALE``; None if a value is off the scale."""
    codes = values - _LOW
    width = len(QUALITY_SCALE)
    if codes.size and (codes.min() < 0 or codes.max() >= width):
        return None
    n = len(n_annotations)
    owner = np.repeat(np.arange(n, dtype=np.int64), n_annotations) * width
    rows = np.flatnonzero(n_annotations)
    counts = [np.bincount(owner + column, minlength=n * width).reshape(n, width)[rows] for column in codes]
    return np.array(counts, dtype=np.int64).reshape(len(codes), len(rows), width)


def _turn_counts(n_turns: np.ndarray, n_annotations: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Counts per turn over every nugget label from the labels in file order (per dialogue: annotation by
    annotation, turn by turn); NaN rows for the turns of dialogues without annotations."""
    sizes = n_turns * n_annotations
    start = np.repeat(np.cumsum(sizes) - sizes, sizes)
    within = np.arange(int(sizes.sum()), dtype=np.int64) - start
    first = np.cumsum(n_turns) - n_turns
    turn = np.repeat(first, sizes) + within % np.maximum(np.repeat(n_turns, sizes), 1)
    width = len(_CODES)
    total = int(n_turns.sum())
    counts = np.bincount(turn * width + codes, minlength=total * width).reshape(total, width).astype(float)
    counts[np.repeat(n_annotations == 0, n_turns)] = np.nan
    return counts


def _diagnose(data, file: Record) -> NoReturn:
    """Raise for the first thing in ``data`` that is not as an STC-3 gold file has it, in the file's order."""
    if not isinstance(data, list):
        raise file.error(N_("expected a JSON list of dialogues"))
    seen: set[str] = set()
    keys = None
    for index, record in enumerate(data):
        if not isinstance(record, dict):
            raise file.error(N_("record %(index)s is not an object"), f"[{index}]", index=index)
        at = file.at(file.field(record, "id", (str, int), f"[{index}]"))
        if at.key in seen:
            raise at.error(N_("appears twice"), "id")
        seen.add(at.key)
        senders = [
            at.choice(turn, "sender", SPEAKERS, f"turns[{t}]") for t, turn in enumerate(at.field(record, "turns", list))
        ]
        for a, annotation in enumerate(at.field(record, "annotations", list)):
            path = f"annotations[{a}]"
            quality = at.field(annotation, "quality", dict, path)
            keys = tuple(quality) if keys is None else keys
            for key in keys:
                at.integer(quality, key, f"{path}.quality", bounds=(_LOW, _LOW + len(QUALITY_SCALE) - 1))
            for key in quality:
                if key not in keys:
                    message = N_("unknown quality criterion %(key)s")
                    raise at.error(message, f"{path}.quality.{key}", key=repr(key))
            nuggets = at.items(annotation, "nugget", str, path)
            if len(nuggets) != len(senders):
                message = N_("%(len)s nugget labels for %(len2)s turns")
                raise at.error(message, f"{path}.nugget", len=len(nuggets), len2=len(senders))
            for t, (label, sender) in enumerate(zip(nuggets, senders)):
                if label not in NUGGET_LABELS[sender]:
                    message = N_("%(value)s is not one of %(choices)s")
                    choices = ", ".join(NUGGET_LABELS[sender])
                    raise at.error(message, f"{path}.nugget[{t}]", value=repr(label[:40]), choices=choices)
    raise file.error(N_("is not an STC-3 gold file"))  # not reached: the two readings agree
