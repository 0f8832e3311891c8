"""The one input reader (``scoring.input``): every check names the file, the record and the field, in any language."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from annotator.input_errors import input_error_text
from scoring.errors import InputError
from scoring.input import MAX_NESTING, Record, load_json, read_json_lines

AT = Record("in.json", "d1")
OBJ = {
    "n": 7,
    "flag": True,
    "s": "a\x00b",
    "long": "x" * 5,
    "blank": "  ",
    "kind": "bot",
    "order": [0, "1"],
    "big": [0, -1],
    "when": "yesterday",
    "naive": "2025-05-06T10:00:00",
    "meta": {"x": float("inf")},
    "deep": [[[]]],
    "list": [],
}

# (what is read, the field named, the English message, the start of its Japanese translation)
CHECKS = [
    (lambda: AT.field(OBJ, "absent", int), "absent", "is missing", "ありません"),
    (lambda: AT.field(OBJ, "flag", int, "turns[0]"), "turns[0].flag", "expected int, got bool", "int が必要"),
    (lambda: AT.field([], "n", int, "turns[1]"), "turns[1]", "expected an object, got list", "オブジェクトが必要"),
    (lambda: AT.text(OBJ, "s"), "s", "contains a NUL character (at position 1)", "NUL 文字"),
    (lambda: AT.text(OBJ, "long", max_length=4), "long", "is 5 characters long; at most 4 fit", "5 文字"),
    (lambda: AT.text(OBJ, "blank", non_empty=True), "blank", "is empty", "空です"),
    (lambda: AT.integer(OBJ, "n", bounds=(0, 5)), "n", "7 is outside 0..5", "0..5 の範囲外"),
    (lambda: AT.choice(OBJ, "kind", ["human", "model"]), "kind", "'bot' is not one of human, model", "human, model"),
    (lambda: AT.items(OBJ, "order", int), "order[1]", "expected int, got str", "int が必要"),
    (lambda: AT.items(OBJ, "big", int, bounds=(0, 9)), "big[1]", "-1 is outside 0..9", "0..9 の範囲外"),
    (lambda: AT.time(OBJ, "when"), "when", "'yesterday' is not an ISO 8601 time", "ISO 8601"),
    (lambda: AT.time(OBJ, "naive"), "naive", "needs a time zone", "タイムゾーン"),
    (lambda: AT.json(OBJ, "meta"), "meta.x", "inf is not a finite number", "有限の数"),
    (lambda: AT.json({"deep": [[[]]] * 1}, "deep"), "deep", None, None),  # three levels: accepted
    (lambda: AT.field(OBJ, "list", dict), "list", "expected dict, got list", "dict が必要"),
]


def test_a_value_that_fits_is_returned():
    assert AT.integer(OBJ, "n", bounds=(0, 9)) == 7
    assert AT.items({"o": [2, 1]}, "o", int, bounds=(0, 9)) == [2, 1]
    assert AT.field(OBJ, "absent", int, optional=True) is None
    assert AT.time({"t": "2025-05-06T10:00:00+09:00"}, "t").utcoffset().seconds == 9 * 3600


@pytest.mark.parametrize("read, field, english, japanese", CHECKS, ids=[c[1] for c in CHECKS])
def test_each_check_names_file_record_and_field_and_is_translated(read, field, english, japanese):
    if english is None:
        read()
        return
    with pytest.raises(InputError) as caught:
        read()
    error = caught.value
    assert (error.file, error.record, error.field) == ("in.json", "d1", field)
    assert str(error) == f"in.json: dialogue d1: field {field}: {english}"
    with translation.override("ja"):
        text = input_error_text(error)
    assert text.startswith("in.json") and "d1" in text and field in text and japanese in text, text
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", text), text


def test_json_nested_deeper_than_storable_is_refused_naming_the_field():
    nested = [0]
    for _ in range(MAX_NESTING):
        nested = [nested]
    with pytest.raises(InputError, match=rf"field m\[0\](\[0\])*: is nested more than {MAX_NESTING} levels deep"):
        AT.json({"m": nested}, "m")


@pytest.mark.parametrize(
    "raw, message, japanese",
    [
        (b'[{"id": ', "malformed JSON: Expecting value: line 1 column 9 (char 8)", "JSON の形式"),
        (b'["\xff"]', "is not UTF-8 text (invalid start byte at byte 2); save it as UTF-8", "UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "malformed JSON: nested too deeply to read", "JSON の形式"),
    ],
    ids=["malformed", "not UTF-8", "too deep"],
)
def test_undecodable_json_names_the_file_and_record(raw, message, japanese):
    with pytest.raises(InputError) as caught:
        load_json(raw, "run.json", record="line 4")
    assert str(caught.value) == f"run.json: dialogue line 4: {message}"
    with translation.override("ja"):
        assert japanese in input_error_text(caught.value)


def test_a_byte_order_mark_and_standard_library_json_are_read():
    assert load_json(b'\xef\xbb\xbf{"a": 1e20}', "a.json") == {"a": 1e20}  # read by the standard library
    assert load_json('{"a": 1}', "a.json") == {"a": 1}
    # the longest integer read: exactly, by the standard library (orjson refuses what a byte order mark precedes)
    assert load_json(b"\xef\xbb\xbf[" + b"7" * 308 + b"]", "a.json") == [int("7" * 308)]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"a": NaN}', "a.json: field a: NaN is not a finite number"),
        (
            b'\xef\xbb\xbf[{"id": 3, "p": [Infinity]}]',
            "a.json: dialogue 3: field p[0]: Infinity is not a finite number",
        ),
        (b'[{"id": "x", "p": -1e999}]', "a.json: dialogue x: field p: -1e999 is not a finite number"),
        (
            b'{"dialogue-id": "x", "n": -' + b"1" * 5001 + b"}",
            "a.json: dialogue x: field n: is an integer of 5001 digits",
        ),
        (b'[{"id": "a\\u0000"}]', "a.json: field [0].id: contains a NUL character (at position 1)"),
        (
            '[{"id": "a", "t": "\\ud83d"}]',
            "a.json: dialogue a: field t: contains a lone surrogate (U+D83D at position 0)",
        ),
    ],
    ids=["nan", "infinity", "overflow", "long-integer", "nul", "surrogate"],
)
def test_values_no_column_can_hold_are_refused_naming_record_and_field(raw, message):
    with pytest.raises(InputError) as refused:
        load_json(raw, "a.json")
    assert str(refused.value).startswith(message)


def test_json_lines_name_the_line_of_a_bad_record():
    lines = [b'{"id": "a"}\n', b"\n", b'{"id": \n']
    with pytest.raises(InputError, match=r"^c\.jsonl: dialogue line 3: malformed JSON"):
        list(read_json_lines(lines, "c.jsonl"))
    line, value = next(read_json_lines(lines, "c.jsonl"))
    with pytest.raises(InputError, match=r"^c\.jsonl: dialogue line 1: field turns: is missing"):
        line.field(value, "turns", list)
