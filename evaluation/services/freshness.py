"""Whether each thing derived from the judgements reflects them: one notion of freshness for every page and the API.

Five things are derived from a project's judgements, each kept by its own mechanism:

* ``statistics``: the stored payload of the scheduled recomputation (``ProjectStatistics``), current while no
  change came after the judgements were last read for it (``selectors.dashboard.freshness``, constant time);
* ``live``: the additive state every save updates (``LiveState``), current unless a structural change (an
  exclusion, an import) waits for its rebuild;
* ``models``: the latent-truth models' estimate (``ModelReliability``), current while its fingerprint is the
  judgements' fingerprint;
* ``runs``: the runs' scores, current while each was scored against the gold of the current fingerprint
  (``Run.gold_fingerprint``; ``runs.selectors.freshness``);
* ``result``: a lead's job result (a judge's report, the power analysis, the study report), current while the
  version of what it read is unchanged (``lead_jobs``).

This module decides for all of them, in one form (``Freshness``): whether it is current, when it was computed,
since when it is stale (the first change it does not include) and why, and whether a worker is bringing it up to
date. Pages render it with one include (``evaluation/_freshness.html``) and the API answers it with one field
(``freshness``, ``Freshness.as_json``), so a page and the API never disagree.

The judgements' current fingerprint is the stored statistics' one while those are up to date (constant time);
while they are not, what was computed from the same judgements as they is stale, and only another fingerprint is
compared with the one read (``CurrentJudgements``; ``selectors.fingerprint``, one aggregate over the items).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.db.models import Min
from django.utils.translation import gettext, gettext_lazy, ngettext

from annotator.models import Assignment, AssignmentStatus, ImportBatch, ImportStatus, Project
from evaluation.models import LiveState, ModelReliability, Run, RunStatus, StatisticsJob
from evaluation.selectors.dashboard import freshness as statistics_state
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.incremental import STALE_REASONS, live_state_peek

PARTS = {
    "statistics": gettext_lazy("Statistics"),
    "live": gettext_lazy("Live figures"),
    "models": gettext_lazy("Latent-truth models"),
    "runs": gettext_lazy("Runs' scores"),
    "result": gettext_lazy("This result"),
}


@dataclass(frozen=True)
class Freshness:
    """Whether one derived thing reflects the current judgements.

    ``current``: it does. ``computed_at``: when it was computed (None: never). ``stale_since``: the first change of
    the judgements it does not include (None when current, or when that moment is not known). ``reason``: why it is
    stale, in the request's language (empty when current). ``pending``: a worker is bringing it up to date."""

    part: str
    current: bool
    computed_at: datetime | None
    stale_since: datetime | None
    reason: str
    pending: bool

    @property
    def label(self) -> str:
        return str(PARTS[self.part])

    @property
    def computed_at_iso(self) -> str | None:
        return _iso(self.computed_at)

    @property
    def stale_since_iso(self) -> str | None:
        return _iso(self.stale_since)

    def as_json(self) -> dict:
        """The API's form (``FreshnessAnswer``): the same fields, times in ISO 8601 (UTC)."""
        return {
            "part": self.part,
            "current": self.current,
            "computed_at": self.computed_at_iso,
            "stale_since": self.stale_since_iso,
            "reason": self.reason,
            "pending": self.pending,
        }


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat() if moment else None


def first_change_after(project: Project | int, moment: datetime | None) -> datetime | None:
    """The first change of what the judgements count after ``moment`` that is known to the platform: a submission,
    a request for the statistics (every write that changes what counts asks for one: an exclusion, a quality
    decision, an adjudication) or a finished import. None if none is known (or ``moment`` is None)."""
    if moment is None:
        return None
    submitted = Assignment.objects.filter(
        dialogue__project=project, status=AssignmentStatus.SUBMITTED, submitted_at__gt=moment
    ).aggregate(first=Min("submitted_at"))["first"]
    imported = ImportBatch.objects.filter(project=project, status=ImportStatus.DONE, finished_at__gt=moment).aggregate(
        first=Min("finished_at")
    )["first"]
    requested = StatisticsJob.objects.filter(project=project, requested_at__gt=moment).values_list(
        "requested_at", flat=True
    )
    known = [t for t in (submitted, imported, *requested) if t is not None]
    return min(known) if known else None


def statistics_freshness(project: Project, state: dict) -> Freshness:
    """The stored statistics' freshness from the dashboard's constant-time ``state``."""
    stored = state["stored"]
    if stored is None:
        return Freshness("statistics", False, None, None, gettext("not computed yet"), state["pending"])
    if state["up_to_date"]:
        return Freshness("statistics", True, stored.computed_at, None, "", state["pending"])
    reason = gettext("the judgements changed since")
    if state["new_items"]:
        reason += " " + ngettext(
            "(%(count)d item submitted since)", "(%(count)d items submitted since)", state["new_items"]
        ) % {"count": state["new_items"]}
    since = first_change_after(project, stored.checked_at or stored.computed_at)
    return Freshness("statistics", False, stored.computed_at, since, reason, state["pending"])


def live_freshness_of(state: LiveState) -> Freshness:
    """The live figures' freshness from their state's row (read by the caller: ``live_state_read`` asks for a
    rebuild a stale state needs, ``live_state_peek`` writes nothing)."""
    stale = state.stale_since is not None or state.built_at is None
    if not stale:
        return Freshness("live", True, state.built_at, None, "", False)
    because = state.stale_because or "population"
    reason = str(STALE_REASONS.get(because, STALE_REASONS["population"]))
    return Freshness("live", False, state.built_at, state.stale_since, reason, True)


class CurrentJudgements:
    """Whether a fingerprint is the judgements' current one, reading the judgements only when it must.

    While the stored statistics are up to date their fingerprint is the current one (constant time). While they
    are not, the judgements changed since they were read: a thing computed from those same judgements is stale
    without a read; only another fingerprint (a run scored since the change) is compared with the one read."""

    def __init__(self, project: Project | int, state: dict):
        self.project, self.stored, self.up_to_date = project, state["stored"], state["up_to_date"]
        self._read: str | None = None

    def match(self, fingerprint: str) -> bool:
        if self.stored is not None and (self.up_to_date or fingerprint == self.stored.fingerprint):
            return self.up_to_date and fingerprint == self.stored.fingerprint
        if self._read is None:
            self._read = judgements_fingerprint(self.project)
        return fingerprint == self._read


def models_freshness(project: Project, judgements: CurrentJudgements, *, pending: bool) -> Freshness:
    """The latent-truth models' estimate: current while it was estimated from the current ``judgements``."""
    row = ModelReliability.objects.filter(project=project).values("fingerprint", "computed_at").first()
    if row is None:
        return Freshness("models", False, None, None, gettext("not estimated yet"), pending)
    if judgements.match(row["fingerprint"]):
        return Freshness("models", True, row["computed_at"], None, "", False)
    since = first_change_after(project, row["computed_at"])
    reason = gettext("estimated from earlier judgements")
    return Freshness("models", False, row["computed_at"], since, reason, pending)


def runs_freshness(project: Project, judgements: CurrentJudgements) -> Freshness | None:
    """The runs' scores: current while every scored run was scored against the gold of the current ``judgements``
    (None: no scored run). ``computed_at``: the oldest scores'."""
    scored = list(
        Run.objects.filter(project=project, status=RunStatus.SCORED).values_list("gold_fingerprint", "scored_at")
    )
    if not scored:
        return None
    oldest = min((at for _f, at in scored if at is not None), default=None)
    stale = [at for f, at in scored if not judgements.match(f)]
    if not stale:
        return Freshness("runs", True, oldest, None, "", False)
    since = first_change_after(project, min((at for at in stale if at is not None), default=None))
    reason = ngettext(
        "%(count)d run was scored against an earlier gold", "%(count)d runs were scored against an earlier gold",
        len(stale),
    ) % {"count": len(stale)}  # fmt: skip
    return Freshness("runs", False, oldest, since, reason, True)


def result_freshness(project: Project | int, *, computed_at: datetime | None, stale: bool, running: bool) -> Freshness:
    """A lead's job result (``lead_jobs.Shown``): stale when the version of what it read changed since."""
    if computed_at is None:
        return Freshness("result", False, None, None, gettext("not computed yet"), running)
    if not stale:
        return Freshness("result", True, computed_at, None, "", running)
    reason = gettext("the judgements changed since")
    return Freshness("result", False, computed_at, first_change_after(project, computed_at), reason, running)


def project_freshness(*, project: Project, state: dict | None = None, live: LiveState | None = None) -> list[Freshness]:
    """Every derived thing's freshness for ``project``, in the order pages show them: statistics, live figures,
    models (MACE always, Dawid-Skene and GLAD with the optional extra), runs (where some are scored). ``state``: the
    dashboard's statistics state when the caller has it; ``live``: the live state's row when the caller read it
    (else peeked, nothing written)."""
    state = statistics_state(project=project) if state is None else state
    parts = [statistics_freshness(project, state), live_freshness_of(live or live_state_peek(project))]
    judgements = CurrentJudgements(project, state)
    job = StatisticsJob.objects.filter(project=project).values_list("models_pending", flat=True).first()
    parts.append(models_freshness(project, judgements, pending=bool(job)))
    runs = runs_freshness(project, judgements)
    if runs is not None:
        parts.append(runs)
    return parts


def freshness_json(parts: list[Freshness]) -> dict[str, dict]:
    """The API's ``freshness`` field: each part's ``as_json`` by its name."""
    return {part.part: part.as_json() for part in parts}
