"""An import's progress: counts reported as the passes go, at most twice a second and at each phase's end."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ImportProgress:
    """Where an import is: dialogues read and checked, then dialogues and rows written (of ``total``)."""

    read: int = 0
    total: int | None = None
    written: int = 0
    rows: int = 0
    final: bool = False


class ProgressTracker:
    """Calls ``report`` with the counts so far, at most every ``every`` seconds and at each phase's end."""

    def __init__(self, report: Callable[[ImportProgress], None] | None, every: float = 0.5):
        self.report, self.every, self.last = report, every, 0.0
        self.state = ImportProgress()

    def update(self, *, final: bool = False, **counts) -> None:
        self.state = ImportProgress(**{**self.state.__dict__, **counts, "final": final})
        now = time.monotonic()
        if self.report is not None and (final or now - self.last >= self.every):
            self.last = now
            self.report(self.state)
