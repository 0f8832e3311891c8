"""Records shared by every reader; they raise ``scoring.errors.InputError`` on bad input."""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.errors import N_, InputError


@dataclass
class ParsedPost:
    speaker: str
    text: str
    source_turn_index: int | None = None
    source_meta: dict = field(default_factory=dict)
    annotated: bool | None = None  # whether the source judged this post; None when the source does not say


@dataclass
class ParsedJudgement:
    """One annotator's value; ``annotator`` is the source's key for them, ``field`` where it came from."""

    annotator: str
    criterion: str
    unit: int
    value: str
    field: str
    extra: dict | None = None


@dataclass
class ParsedGoldCount:
    criterion: str
    unit: int
    value: str
    count: int
    n_annotators: int
    field: str


@dataclass
class ParsedDialogue:
    file: str
    external_id: str
    posts: list[ParsedPost]
    language: str = ""
    source_meta: dict = field(default_factory=dict)
    judgements: list[ParsedJudgement] = field(default_factory=list)
    gold_counts: list[ParsedGoldCount] = field(default_factory=list)

    def fail(self, message: str, field: str | None = None, params: dict | None = None) -> InputError:
        return InputError(self.file, message, record=self.external_id, field=field, params=params)


def require(obj: dict, key: str, kind: type | tuple[type, ...], *, file: str, record: str | None, path: str):
    """Return ``obj[key]`` if present and of ``kind``, else raise naming the field."""
    if not isinstance(obj, dict):
        raise InputError(
            file, N_("expected an object, got %(type)s"), record=record, field=path, params={"type": type(obj).__name__}
        )
    if key not in obj:
        raise InputError(file, N_("is missing"), record=record, field=f"{path}.{key}" if path else key)
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        names = "/".join(k.__name__ for k in _as_tuple(kind))
        raise InputError(
            file,
            N_("expected %(names)s, got %(type)s"),
            record=record,
            field=f"{path}.{key}" if path else key,
            params={"names": names, "type": type(value).__name__},
        )
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)
