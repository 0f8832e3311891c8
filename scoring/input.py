"""Reading and checking input: JSON and JSON Lines decoded, and typed access to the fields of a record.

The collection importers (``annotator.importers``), the run readers (``scoring.run_files``) and the
project archive (``evaluation.archive``) read through this module, so that bad input is refused the
same way everywhere: an ``InputError`` naming the file, the record (a dialogue id, or the line of a
JSON Lines file) and the field, whose message is a template marked ``N_`` that the Django side
translates (``annotator.input_errors``).

A ``Record`` is where the values come from; its methods read a field, check its type (and range,
choices, length...) and return it, or raise naming it:

>>> run = Record("run.json")
>>> data = load_json(b'[{"id": "d1", "turns": [{"speaker": ""}]}]', run.file)
>>> d1 = run.at(run.field(data[0], "id", (str, int), "[0]"))
>>> d1.field(data[0], "turns", list)[0]
{'speaker': ''}
>>> d1.text(data[0]["turns"][0], "speaker", "turns[0]", non_empty=True)
Traceback (most recent call last):
...
scoring.errors.InputError: run.json: dialogue d1: field turns[0].speaker: is empty
>>> d1.field(data[0], "quality", dict)
Traceback (most recent call last):
...
scoring.errors.InputError: run.json: dialogue d1: field quality: is missing
>>> load_json(b'[{"id": ', "run.json")
Traceback (most recent call last):
...
scoring.errors.InputError: run.json: malformed JSON: Expecting value: line 1 column 9 (char 8)
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, overload

import orjson

from scoring.errors import N_, InputError

MAX_NESTING = 64  # levels of lists and objects a stored JSON value may have


def load_json(raw: bytes | str, file: str, *, record: str | None = None):
    """The JSON document in ``raw``, parsed by orjson (several times faster on a run of thousands of dialogues).

    orjson reads a subset of what the standard library reads (not ``NaN``, ``Infinity``, numbers beyond a
    double, lone surrogates, a byte order mark) and gives terser messages: anything it refuses is read
    again by ``json``, so that the messages stay those of the standard library (orjson reads an integer
    beyond 64 bits as the nearest double, where ``json`` reads it exactly). Bytes are decoded as
    ``json.loads`` decodes them (UTF-8, with or without a byte order mark).

    What no database column or message can hold is refused here, naming the record and the field
    (``json_problem``): ``NaN`` and ``Infinity`` (and numbers too large for a double), integers of more
    than ``MAX_INTEGER_DIGITS`` digits, and strings (values or keys) holding a NUL or a lone surrogate.

    >>> load_json(b'[{"id": "d1", "p": NaN}]', "run.json")
    Traceback (most recent call last):
    ...
    scoring.errors.InputError: run.json: dialogue d1: field p: NaN is not a finite number
    >>> load_json(b'{"a": ["\\\\u0000"]}', "x.json", record="line 2")
    Traceback (most recent call last):
    ...
    scoring.errors.InputError: x.json: dialogue line 2: field a[0]: contains a NUL character (at position 0)
    """
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        data = _load_standard(raw, file, record)
    else:  # orjson refuses lone surrogates and non-finite numbers itself; a NUL can only be escaped
        if (b"\\u0000" not in raw) if isinstance(raw, bytes) else ("\\u0000" not in raw):
            return data
    problem = json_problem(data)
    if problem is not None:
        path, template, params = problem
        where, field = _record_of(data, path)
        raise InputError(file, template, record=where or record, field=field or None, params=params)
    return data


def _load_standard(raw: bytes | str, file: str, record: str | None):
    if isinstance(raw, bytes):
        try:
            raw = raw.decode(json.detect_encoding(raw))
        except UnicodeDecodeError as exc:
            raise InputError(
                file,
                N_("is not UTF-8 text (%(reason)s at byte %(start)s); save it as UTF-8"),
                record=record,
                params={"reason": exc.reason, "start": exc.start},
            ) from None
    try:
        return json.loads(raw, parse_constant=_Refused.constant, parse_float=_read_float, parse_int=_read_int)
    except json.JSONDecodeError as exc:
        raise InputError(file, N_("malformed JSON: %(exc)s"), record=record, params={"exc": exc}) from None
    except RecursionError:
        raise InputError(file, N_("malformed JSON: nested too deeply to read"), record=record) from None


MAX_INTEGER_DIGITS = 308  # as many as the largest double has: a longer integer is no measurement or id


class _Refused:
    """A number the reader refuses, left where it was read so that ``json_problem`` names its field."""

    __slots__ = ("params", "template")

    def __init__(self, template: str, params: dict):
        self.template, self.params = template, params

    @classmethod
    def constant(cls, name: str) -> _Refused:
        return cls(N_("%(item)s is not a finite number"), {"item": name})


def _read_float(text: str) -> float | _Refused:
    value = float(text)
    return value if math.isfinite(value) else _Refused.constant(text[:40])


def _read_int(text: str) -> int | _Refused:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        message = N_("is an integer of %(digits)s digits; at most %(max_digits)s are read")
        return _Refused(message, {"digits": digits, "max_digits": MAX_INTEGER_DIGITS})
    return int(text)


def json_problem(value) -> tuple[list, str, dict] | None:
    """The first value in a parsed document that cannot be stored: its path (keys and indices), a message
    template and its parameters; None if there is none. Iterative (a deep document is no RecursionError).

    >>> path, template, params = json_problem({"a": [1, "ok", {"b\\ud800": 2}]})
    >>> path, params
    (['a', 2, 'b\\ud800'], {'code': 'D800', 'position': 1})
    """
    stack: list[tuple[object, list]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            problem = text_problem(item)
            if problem:
                return path, *problem
        elif isinstance(item, _Refused):
            return path, item.template, item.params
        elif isinstance(item, list):
            stack.extend((child, [*path, i]) for i, child in reversed(list(enumerate(item))))
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                problem = text_problem(key)
                if problem:
                    return [*path, key], *problem
                stack.append((child, [*path, key]))
    return None


RECORD_KEYS = ("id", "dialogue-id")  # the fields that name a record (a dialogue) in the files read


def _record_of(data, path: list) -> tuple[str | None, str]:
    """The record a path points into (the dialogue whose id is read, when it can be), and the field in it.

    >>> _record_of([{"id": "d1"}, {"id": "d2", "a": [{"b": 1}]}], [1, "a", 0, "b"])
    ('d2', 'a[0].b')
    >>> _record_of([{"id": "d\\x00"}], [0, "id"])
    (None, '[0].id')
    """
    holder, rest = data, path
    if path and isinstance(path[0], int) and isinstance(data, list):
        holder, rest = data[path[0]], path[1:]
    if isinstance(holder, dict) and not (len(rest) == 1 and rest[0] in RECORD_KEYS):
        ids = [holder[key] for key in RECORD_KEYS if key in holder]
        if ids and (is_kind(ids[0], int) or (isinstance(ids[0], str) and not text_problem(ids[0], 200))):
            return str(ids[0]), _field(rest)
    return None, _field(path)


def _field(path: list) -> str:
    """``a[0].b`` from ``["a", 0, "b"]``; keys are cut to 40 characters and shown safely."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            key = part[:40] if not text_problem(part) else repr(part[:40])
            text += f".{key}" if text else key
    return text


def read_json_lines(lines: Iterable[bytes], file: str) -> Iterator[tuple[Record, object]]:
    """Each value of a JSON Lines file, with its line as its record (``line 3``); blank lines are skipped.

    >>> [(line.id, value) for line, value in read_json_lines([b'{"a": 1}', b"", b"[2]"], "c.jsonl")]
    [('line 1', {'a': 1}), ('line 3', [2])]
    """
    for number, raw in enumerate(lines, start=1):
        if raw.strip():
            line = Record(file, f"line {number}")
            yield line, load_json(raw, file, record=line.id)


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def is_kind(value, kind: type | tuple[type, ...]) -> bool:
    """``isinstance``, except that a boolean is not an integer (JSON tells ``true`` from ``1``)."""
    kinds = _kinds(kind)
    return isinstance(value, kinds) and (not isinstance(value, bool) or bool in kinds)


def text_problem(value: str, max_length: int | None = None) -> tuple[str, dict] | None:
    """Why ``value`` cannot be stored in a text column (a message template and its parameters), or None.

    >>> text_problem("a\\x00b")
    ('contains a NUL character (at position %(position)s)', {'position': 1})
    >>> text_problem("x" * 41, 40)
    ('is %(length)s characters long; at most %(max_length)s fit', {'length': 41, 'max_length': 40})
    """
    if "\x00" in value:
        return N_("contains a NUL character (at position %(position)s)"), {"position": value.index("\x00")}
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (
            N_("contains a lone surrogate (U+%(code)s at position %(position)s), not valid Unicode"),
            {"code": f"{ord(value[exc.start]):04X}", "position": exc.start},
        )
    if max_length is not None and len(value) > max_length:
        return N_("is %(length)s characters long; at most %(max_length)s fit"), {
            "length": len(value),
            "max_length": max_length,
        }
    return None


def texts_fit(values: list[str], max_length: int | None = None) -> bool:
    """Whether every one of ``values`` can be stored in a text column (``text_problem`` of each is None), checked
    at once: one search for NUL and one encoding of them all (an import checks 120,000 such values for DBDC3's
    English evaluation set). A reader that finds False looks for the first culprit with ``text_problem``.

    >>> texts_fit(["a", "b"], 1), texts_fit(["a", "bc"], 1), texts_fit(["a", "\\ud800"])
    (True, False, False)
    """
    joined = "".join(values)
    if "\x00" in joined or (max_length is not None and values and max(map(len, values)) > max_length):
        return False
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Record:
    """Where values are read: a file and, once known, the record in it (a dialogue id, ``line 3``, ``row 2``).

    Each reading method takes the object holding the value, its key, and ``path``, the place of that object
    in the record (``turns[2]``); an error names the field ``path.key``.
    """

    file: str
    id: str | None = None

    def at(self, record) -> Record:
        """The same file, another record."""
        return Record(self.file, None if record is None else str(record))

    @property
    def key(self) -> str:
        """The record's id, for a reader that named the record with ``at`` (an error if it did not)."""
        if self.id is None:
            raise ValueError(f"{self.file}: no record named")
        return self.id

    def error(self, message: str, field: str | None = None, /, **params) -> InputError:
        """An ``InputError`` here: ``message`` is a template marked ``N_``, filled from ``params``."""
        return InputError(self.file, message, record=self.id, field=field, params=params)

    # --- one value -------------------------------------------------------------------------------------

    def value(self, value, kind: type | tuple[type, ...], field: str, *, optional: bool = False):
        """``value`` if it is of ``kind`` (None too when ``optional``)."""
        if (value is None and optional) or is_kind(value, kind):
            return value
        names = "/".join(k.__name__ for k in _kinds(kind))
        raise self.error(N_("expected %(names)s, got %(type)s"), field, names=names, type=type(value).__name__)

    def field(self, obj, key: str, kind: type | tuple[type, ...], path: str = "", *, optional: bool = False):
        """``obj[key]`` if ``obj`` is an object and the value is of ``kind``; None if ``optional`` and absent."""
        if not isinstance(obj, dict):
            raise self.error(N_("expected an object, got %(type)s"), path or None, type=type(obj).__name__)
        field = f"{path}.{key}" if path else key
        if key not in obj:
            if optional:
                return None
            raise self.error(N_("is missing"), field)
        return self.value(obj[key], kind, field, optional=optional)

    # --- checks of what a value holds --------------------------------------------------------------------

    def check_text(self, value: str, field: str, *, max_length: int | None = None, non_empty: bool = False) -> str:
        """``value`` if it can be stored as text (no NUL, no lone surrogate, at most ``max_length``)."""
        problem = text_problem(value, max_length)
        if problem:
            raise self.error(problem[0], field, **problem[1])
        if non_empty and not value.strip():
            raise self.error(N_("is empty"), field)
        return value

    def check_int(self, value: int, field: str, bounds: tuple[int, int]) -> int:
        low, high = bounds
        if not low <= value <= high:
            raise self.error(N_("%(value)s is outside %(low)s..%(high)s"), field, value=value, low=low, high=high)
        return value

    def check_json(self, value, field: str) -> None:
        """Plain, storable JSON: strings and keys as ``check_text``, finite numbers, at most ``MAX_NESTING`` deep.

        Iterative, so a deeply nested value is reported, not a RecursionError.
        """
        stack = [(value, field, 0)]
        while stack:
            item, path, depth = stack.pop()
            if isinstance(item, str):
                self.check_text(item, path)
            elif isinstance(item, float) and not math.isfinite(item):
                raise self.error(N_("%(item)s is not a finite number"), path, item=item)
            elif isinstance(item, (dict, list)):
                if depth >= MAX_NESTING:
                    message = N_("is nested more than %(MAX_NESTING)s levels deep")
                    raise self.error(message, path, MAX_NESTING=MAX_NESTING)
                if isinstance(item, list):
                    stack.extend((child, f"{path}[{i}]", depth + 1) for i, child in enumerate(item))
                    continue
                for key, child in item.items():
                    if not isinstance(key, str):
                        raise self.error(N_("has a key that is not a string"), path)
                    self.check_text(key, f"{path}.{key[:40]!r}")
                    stack.append((child, f"{path}.{key[:40]}", depth + 1))
            elif not (item is None or isinstance(item, (bool, int, float))):
                raise self.error(N_("%(type)s is not JSON"), path, type=type(item).__name__)

    # --- typed fields ------------------------------------------------------------------------------------

    def text(self, obj, key: str, path: str = "", *, max_length: int | None = None, non_empty: bool = False) -> str:
        """A string field that can be stored (``check_text``), not blank if ``non_empty``."""
        value = self.field(obj, key, str, path)
        return self.check_text(value, f"{path}.{key}" if path else key, max_length=max_length, non_empty=non_empty)

    def integer(
        self, obj, key: str, path: str = "", *, bounds: tuple[int, int] | None = None, optional: bool = False
    ) -> int | None:
        """An integer field (never a boolean), within ``bounds`` (inclusive) when given."""
        value = self.field(obj, key, int, path, optional=optional)
        if value is not None and bounds is not None:
            self.check_int(value, f"{path}.{key}" if path else key, bounds)
        return value

    def choice(self, obj, key: str, choices: Sequence[str], path: str = "") -> str:
        """A string field holding one of ``choices``."""
        value = self.field(obj, key, str, path)
        if value not in choices:
            raise self.error(
                N_("%(value)s is not one of %(choices)s"),
                f"{path}.{key}" if path else key,
                value=repr(value[:40]),
                choices=", ".join(choices),
            )
        return value

    @overload
    def items(
        self,
        obj,
        key: str,
        kind: type | tuple[type, ...],
        path: str = "",
        *,
        bounds: tuple[int, int] | None = None,
        optional: Literal[False] = False,
    ) -> list: ...

    @overload
    def items(
        self,
        obj,
        key: str,
        kind: type | tuple[type, ...],
        path: str = "",
        *,
        bounds: tuple[int, int] | None = None,
        optional: bool,
    ) -> list | None: ...

    def items(
        self,
        obj,
        key: str,
        kind: type | tuple[type, ...],
        path: str = "",
        *,
        bounds: tuple[int, int] | None = None,
        optional: bool = False,
    ) -> list | None:
        """A list field whose every item is of ``kind`` (integers within ``bounds`` when given)."""
        field = f"{path}.{key}" if path else key
        values = self.field(obj, key, list, path, optional=optional)
        for i, item in enumerate(values or ()):
            self.value(item, kind, f"{field}[{i}]")
            if bounds is not None:
                self.check_int(item, f"{field}[{i}]", bounds)
        return values

    def time(self, obj, key: str, path: str = "", *, optional: bool = False) -> datetime | None:
        """An ISO 8601 time with a time zone."""
        value = self.field(obj, key, str, path, optional=optional)
        if value is None:
            return None
        field = f"{path}.{key}" if path else key
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise self.error(N_("%(value)s is not an ISO 8601 time"), field, value=repr(value[:40])) from None
        if parsed.tzinfo is None:
            raise self.error(N_("needs a time zone"), field)
        return parsed

    def json(self, obj, key: str, path: str = "", kind=(dict, list), *, optional: bool = False):
        """A field of plain, storable JSON (``check_json``) of ``kind``."""
        value = self.field(obj, key, kind, path, optional=optional)
        if value is not None:
            self.check_json(value, f"{path}.{key}" if path else key)
        return value
