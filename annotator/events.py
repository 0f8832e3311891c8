"""What annotator tells the side that derives figures from its judgements, and the one thing it asks of it.

``annotator`` owns the judgements; the ``evaluation`` app derives everything from them (the live running
figures, the stored statistics, the runs' scores) and imports ``annotator`` freely. The reverse never happens
(an import-linter contract with no exceptions): annotator's services call the functions below, and
``evaluation`` installs the listener that does the work when Django starts (``EvaluationConfig.ready``).
Without it (annotator on its own), the events change nothing and the live counts are never exact.

The calls are plain and synchronous, inside the caller's transaction, so the order of locks stays the
caller's: a submission's labels are counted in the save's own transaction, and a structural change marks
the live figures stale before it deletes anything.

Events:

- ``judgements_counted(assignment, sign)``: a submission adds its item's labels (+1), a reopening takes
  them away (-1);
- ``population_changed(project_id, reason)``: whose or which judgements count changed (an exclusion, an
  import, control items ...): the running figures must be rebuilt (``reason``: a key of
  ``evaluation.services.incremental.STALE_REASONS``);
- ``statistics_due(project_id)``: something the statistics read changed; ask for their recomputation once
  the caller's transaction commits.

Questions:

- ``live_unit_counts(project, criteria)``: each criterion's per-unit label counts when the live state is
  exact now, else None (the caller counts the judgements);
- ``live_counts_wanted(project)``: have the live counts built (in the background) if there are none yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from annotator.models import Assignment, Project


class Listener(Protocol):
    def judgements_counted(self, *, assignment: Assignment, sign: int) -> None: ...

    def population_changed(self, *, project_id: int, reason: str) -> None: ...

    def statistics_due(self, *, project_id: int) -> None: ...

    def live_unit_counts(self, *, project: Project, criteria: dict[int, tuple[str, int]]) -> dict[str, Any] | None: ...

    def live_counts_wanted(self, *, project: Project) -> None: ...


class _Nobody:
    """The listener until one is installed: nothing is derived, so nothing needs telling."""

    def judgements_counted(self, *, assignment, sign):
        pass

    def population_changed(self, *, project_id, reason):
        pass

    def statistics_due(self, *, project_id):
        pass

    def live_unit_counts(self, *, project, criteria):
        return None

    def live_counts_wanted(self, *, project):
        pass


_listener: Listener = _Nobody()


def listener_install(listener: Listener) -> None:
    """Make ``listener`` the one that hears annotator's events (the evaluation app, at start-up)."""
    global _listener
    _listener = listener


def judgements_counted(*, assignment: Assignment, sign: int) -> None:
    _listener.judgements_counted(assignment=assignment, sign=sign)


def population_changed(*, project_id: int, reason: str) -> None:
    _listener.population_changed(project_id=project_id, reason=reason)


def statistics_due(*, project_id: int) -> None:
    _listener.statistics_due(project_id=project_id)


def live_unit_counts(*, project: Project, criteria: dict[int, tuple[str, int]]) -> dict[str, Any] | None:
    return _listener.live_unit_counts(project=project, criteria=criteria)


def live_counts_wanted(*, project: Project) -> None:
    _listener.live_counts_wanted(project=project)
