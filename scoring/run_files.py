"""Reading and validating system runs: the STC-3/DialEval submission and DBDC ``*.labels.json``.

Readers check every value against the gold data they are given (the ids, the turns, the
label sets) and raise ``InputError`` naming the file, the dialogue id and the field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scoring.errors import InputError


def _load_json(raw: bytes | str, source: str):
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(source, f"malformed JSON: {exc}") from None
    except RecursionError:
        raise InputError(source, "JSON nested too deeply to read") from None


def _distribution(
    obj, labels: Sequence[str], *, source: str, record: str, field: str, key_of=lambda label: label
) -> list[float]:
    if not isinstance(obj, dict):
        raise InputError(source, "expected an object of label probabilities", record=record, field=field)
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
                f"unknown label {key!r} (expected {', '.join(sorted(keys))})",
                record=record,
                field=f"{field}.{key}",
            )
    for key, value in zip(keys, out):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InputError(source, f"probability {value!r} is not a number", record=record, field=f"{field}.{key}")
        if value < 0:
            raise InputError(source, f"probability {value!r} is negative", record=record, field=f"{field}.{key}")
    if sum(out) > 0:  # every value finite, and their sum is not
        raise InputError(
            source, "probabilities too large: their sum is not a finite number", record=record, field=field
        )
    raise InputError(source, "probabilities sum to zero", record=record, field=field)


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
        raise InputError(source, "expected a JSON list of dialogues")
    dialogues: list[str] = []
    quality_rows: dict[str, tuple[list[int], list[list[float]]]] = {k: ([], []) for k in quality_keys}
    rows = {"customer": ([], [], []), "helpdesk": ([], [], [])}
    labels = {"customer": customer_labels, "helpdesk": helpdesk_labels}
    seen = set()
    for i, record in enumerate(data):
        if not isinstance(record, dict) or "id" not in record:
            raise InputError(source, "expected an object with an id", field=f"[{i}]")
        did = str(record["id"])
        if did not in gold_turns:
            raise InputError(source, "is not in the gold data", record=did, field="id")
        if did in seen:
            raise InputError(source, "appears twice", record=did, field="id")
        seen.add(did)
        position = len(dialogues)
        dialogues.append(did)
        quality = record.get("quality", {})
        if not isinstance(quality, dict):
            raise InputError(source, "expected an object", record=did, field="quality")
        for key, dist in quality.items():
            if key not in quality_rows:
                raise InputError(source, f"unknown quality criterion {key!r}", record=did, field=f"quality.{key}")
            quality_rows[key][0].append(position)
            quality_rows[key][1].append(
                _distribution(dist, quality_scale, source=source, record=did, field=f"quality.{key}")
            )
        if "nugget" in record:
            nuggets = record["nugget"]
            speakers = gold_turns[did]
            if not isinstance(nuggets, list) or len(nuggets) != len(speakers):
                n = len(nuggets) if isinstance(nuggets, list) else "no"
                raise InputError(
                    source, f"{n} turn distributions for {len(speakers)} turns", record=did, field="nugget"
                )
            for t, (dist, speaker) in enumerate(zip(nuggets, speakers)):
                p = _distribution(dist, labels[speaker], source=source, record=did, field=f"nugget[{t}]")
                rows[speaker][0].append(position)
                rows[speaker][1].append(t)
                rows[speaker][2].append(p)
    if strict:
        missing = [d for d in gold_turns if d not in seen]
        if missing:
            raise InputError(
                source,
                f"{len(missing)} gold dialogues are missing from the run (strict mode)",
                record=missing[0],
                field="id",
            )

    def nugget_rows(speaker: str) -> NuggetRows:
        d, t, p = rows[speaker]
        return NuggetRows(
            np.array(d, dtype=np.int64),
            np.array(t, dtype=np.int64),
            np.array(p, dtype=float).reshape(-1, len(labels[speaker])),
        )

    quality_arrays = {
        k: (np.array(ix, dtype=np.int64), np.array(ps, dtype=float).reshape(-1, len(quality_scale)))
        for k, (ix, ps) in quality_rows.items()
    }
    return STC3Run(dialogues, quality_arrays, nugget_rows("customer"), nugget_rows("helpdesk"))


DBDC_LABELS = ("O", "T", "X")


@dataclass(frozen=True)
class DBDCRun:
    """One row per judged system turn: dialogue id, turn index, predicted label and distribution."""

    dialogue: list[str]
    turn: np.ndarray
    label: np.ndarray
    p: np.ndarray


def read_dbdc_run(
    files: Iterable[tuple[str, bytes | str]], *, gold_turns: Mapping[str, Sequence[int]], strict: bool = False
) -> DBDCRun:
    """Parse DBDC ``<dialogue-id>.labels.json`` files (``files`` yields (name, content)).

    Every annotated system turn of a dialogue in the run must be labelled; ``strict`` also
    requires every gold dialogue.
    """
    dialogue, turn, label, probs = [], [], [], []
    seen = set()
    for name, raw in files:
        record = _load_json(raw, name)
        if not isinstance(record, dict) or "dialogue-id" not in record:
            raise InputError(name, "expected an object with dialogue-id", field="dialogue-id")
        did = str(record["dialogue-id"])
        if did not in gold_turns:
            raise InputError(name, "is not in the gold data", record=did, field="dialogue-id")
        if did in seen:
            raise InputError(name, "appears twice", record=did, field="dialogue-id")
        seen.add(did)
        turns = record.get("turns")
        if not isinstance(turns, list):
            raise InputError(name, "is missing", record=did, field="turns")
        covered = set()
        for k, entry in enumerate(turns):
            field = f"turns[{k}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("turn-index"), int):
                raise InputError(name, "needs an integer turn-index", record=did, field=f"{field}.turn-index")
            index = entry["turn-index"]
            if index not in gold_turns[did]:
                raise InputError(
                    name, f"turn {index} is not an annotated system turn", record=did, field=f"{field}.turn-index"
                )
            labels = entry.get("labels")
            if not isinstance(labels, list) or not labels or not isinstance(labels[0], dict):
                raise InputError(name, "needs one labels object", record=did, field=f"{field}.labels")
            first = labels[0]
            if first.get("breakdown") not in DBDC_LABELS:
                raise InputError(
                    name,
                    f"unknown label {first.get('breakdown')!r} (expected O, T or X)",
                    record=did,
                    field=f"{field}.labels[0].breakdown",
                )
            p = _distribution(
                {k: v for k, v in first.items() if k.startswith("prob-")},
                DBDC_LABELS,
                source=name,
                record=did,
                field=f"{field}.labels[0]",
                key_of=lambda lab: f"prob-{lab}",
            )
            dialogue.append(did)
            turn.append(index)
            label.append(DBDC_LABELS.index(first["breakdown"]))
            probs.append(p)
            covered.add(index)
        missing = sorted(set(gold_turns[did]) - covered)
        if missing:
            raise InputError(name, f"annotated system turn {missing[0]} has no label", record=did, field="turns")
    if strict:
        absent = [d for d in gold_turns if d not in seen]
        if absent:
            raise InputError("run", f"{len(absent)} gold dialogues are missing (strict mode)", record=absent[0])
    return DBDCRun(
        dialogue,
        np.array(turn, dtype=np.int64),
        np.array(label, dtype=np.int64),
        np.array(probs, dtype=float).reshape(-1, 3),
    )
