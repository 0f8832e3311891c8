"""What a save brings (``Given``) and why one is refused (``SubmissionError``, ``ConflictError``,
``ItemClosed``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class SubmissionError(ValueError):
    """A save that cannot be accepted; ``problems`` lists what is wrong or missing, in words, and
    ``missing`` the form fields (``j:KEY:UNIT``, ``reordering``) a submission still lacks."""

    def __init__(self, problems: list[str], missing: Sequence[str] = ()):
        self.problems = problems
        self.missing = list(missing)
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class Conflict:
    """One answer this save would write over a stored value the client has not seen: the stored value
    is neither the one the client last saw there (``seen``) nor the one it brings (``given``)."""

    name: str  # the form field: j:KEY:UNIT, or "reordering"
    criterion: str
    unit: int
    stored: str  # the value saved elsewhere ("" for none; the order as JSON for the reordering)
    given: str  # the value this save brought
    seen: str = ""  # the value the client last saw there ("" for none)


class ItemClosed(Exception):
    """A study participant's item that takes no more saves, and why (``code``): ``time_over``, the time
    limit and its grace have passed; ``released``, the item went to another participant after that.
    Nothing of the save is stored; what was saved in time is kept (with the released copy)."""

    TIME_OVER = "time_over"
    RELEASED = "released"

    def __init__(self, code: str, message: str):
        self.code = code
        super().__init__(message)


class ConflictError(SubmissionError):
    """The item was saved elsewhere since ``version`` the client sent, changing the same answers."""

    def __init__(self, problems: list[str], conflicts: list[Conflict], version: int):
        super().__init__(problems)
        self.conflicts = conflicts
        self.version = version


@dataclass(frozen=True)
class Given:
    """A value for one criterion on one unit; ``value`` "" removes the judgement. ``base`` is the value
    the client last saw there ("" for no answer): when given, the save never writes over a stored value
    that is neither ``base`` nor ``value``. ``None`` (not sent) is read as "" when the client's version
    is stale, and not checked otherwise."""

    criterion: str
    unit: int
    value: str
    base: str | None = None
