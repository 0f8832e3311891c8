"""Records shared by every reader; they raise ``scoring.errors.InputError`` on bad input."""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.errors import InputError


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
    shown_first: str = ""  # comparison items: the candidate ("a" or "b") the annotator saw first, if known


@dataclass
class ParsedCandidate:
    """A comparison item's candidate response (slot 0 is A, slot 1 is B)."""

    system: str
    text: str


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
    candidates: list[ParsedCandidate] = field(default_factory=list)  # comparison items: the two responses

    def fail(self, message: str, field: str | None = None, params: dict | None = None) -> InputError:
        return InputError(self.file, message, record=self.external_id, field=field, params=params)
