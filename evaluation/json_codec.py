"""JSON for the large stored results (statistics payloads, run scores per dialogue), through orjson.

Django's ``JSONField`` encodes with ``json.dumps(value, cls=encoder)`` and decodes with
``json.loads(text, cls=decoder)``; these classes hand both to orjson, several times faster on the
megabytes a project of tens of thousands of dialogues stores and the dashboard reads back. orjson
writes NaN and infinities as null, as ``json_finite`` does. Anything orjson does not take
(a lazy translation, an integer beyond 64 bits) falls back to the standard library.

>>> OrjsonEncoder().encode({"tau": float("nan"), 3: [1.5]})
'{"tau":null,"3":[1.5]}'
>>> OrjsonDecoder().decode('{"a": [1, null]}')
{'a': [1, None]}
"""

from __future__ import annotations

import json

import orjson

from scoring.json_values import json_finite  # noqa: F401  (the platform's stored results use it from here too)

OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


class OrjsonEncoder(json.JSONEncoder):
    def encode(self, o) -> str:
        try:
            return orjson.dumps(o, option=OPTIONS).decode()
        except TypeError:
            return super().encode(o)


class OrjsonDecoder(json.JSONDecoder):
    def decode(self, s, *args, **kwargs):
        try:
            return orjson.loads(s)
        except orjson.JSONDecodeError:
            return super().decode(s, *args, **kwargs)
