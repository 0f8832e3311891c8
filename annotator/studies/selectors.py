"""Reads for crowdsourced studies: places left, where a participant stands, their clock, the lead's
participant table.

The time limit: a participant's *deadline* is ``allocated_at`` plus the study's limit; their page's
saves are taken until the deadline plus the grace (``STUDY_SAVE_GRACE_SECONDS``, ``saves_end``), and
their unfinished items are released only after that, so an answer given in time is saved or refused
with the reason, never lost between the two."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import parse_qsl, quote

import numpy as np
from django.conf import settings
from django.db.models import Count, Exists, Max, OuterRef, Q, Sum
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext, pgettext_lazy

from annotator.exporters.tables import DownloadTable
from annotator.models import (
    Assignment,
    AssignmentStatus,
    Participant,
    Project,
    QualityItem,
    QualityItemKind,
    ReleasedItem,
    Study,
)
from annotator.wording import minutes_text

# Where platforms put the participant id, in the order they are looked for (after the lead's own).
ID_PARAMETERS = ("PROLIFIC_PID", "workerId", "participant")
# The platform's other ids kept from the first visit (Prolific's, then MTurk's).
PLATFORM_PARAMETERS = ("STUDY_ID", "SESSION_ID", "assignmentId", "hitId")
# The platform's value for one visit of one participant (Prolific's session, MTurk's assignment): a second
# browser that brings the first visit's value is the same participant coming back.
SESSION_PARAMETERS = ("SESSION_ID", "assignmentId")
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"  # MTurk's assignmentId while a worker previews a HIT
MAX_ID_LENGTH = 200


@dataclass(frozen=True)
class VisitIds:
    """What a study link's query string carries: the participant id (None when absent), the parameter it
    came in, the platform's other ids, and whether it is an MTurk preview (no id to work under yet)."""

    external_id: str | None
    parameter: str | None
    platform: dict[str, str]
    preview: bool
    invalid: bool = False
    undecodable: bool = False  # the id's bytes are not UTF-8 (invalid, and said so)


def undecodable_parameters(raw_query: str) -> set[str]:
    """The parameters of a raw query string (WSGI's ``QUERY_STRING``: its bytes as Latin-1) whose value is not
    UTF-8 once percent-decoded. Django decodes those with replacement characters, so that two different ids
    (``%FF`` and ``%FE``) would read alike.

    >>> sorted(undecodable_parameters("PROLIFIC_PID=%FF&STUDY_ID=s1&x=%E2%9C%93"))
    ['PROLIFIC_PID']
    """
    bad = set()
    for name, value in parse_qsl(raw_query, keep_blank_values=True, encoding="latin-1"):
        try:
            value.encode("latin-1").decode("utf-8")
        except UnicodeError:
            bad.add(name.encode("latin-1").decode("utf-8", "replace"))
    return bad


def visit_ids(*, study: Study, query, raw_query: str = "") -> VisitIds:
    """Read the participant id from ``query`` (a QueryDict): the lead's parameter first, then
    ``PROLIFIC_PID``, ``workerId``, ``participant``. An id longer than 200 characters, with control
    characters, or whose bytes in ``raw_query`` (the request's raw query string) are not UTF-8 is ``invalid``;
    surrounding spaces are dropped."""
    platform = {name: query[name][:MAX_ID_LENGTH] for name in PLATFORM_PARAMETERS if query.get(name)}
    preview = platform.get("assignmentId") == MTURK_PREVIEW
    names = ((study.id_parameter,) if study.id_parameter else ()) + ID_PARAMETERS
    undecodable = undecodable_parameters(raw_query) if "%" in raw_query or not raw_query.isascii() else set()
    for name in names:
        value = (query.get(name) or "").strip()
        if name in undecodable:
            return VisitIds(None, name, platform, preview, invalid=True, undecodable=True)
        if value:
            invalid = len(value) > MAX_ID_LENGTH or not value.isprintable()
            return VisitIds(None if invalid else value, name, platform, preview, invalid)
    return VisitIds(None, None, platform, preview)


def save_grace() -> timedelta:
    """How long after the deadline a participant's page's saves are still taken (a save in flight or retried)."""
    return timedelta(seconds=settings.STUDY_SAVE_GRACE_SECONDS)


def participant_deadline(allocated_at: datetime | None, time_limit_minutes: int | None) -> datetime | None:
    """When the participant's time runs out (None before they have items, or for someone in no study)."""
    if allocated_at is None or time_limit_minutes is None:
        return None
    return allocated_at + timedelta(minutes=time_limit_minutes)


def saves_end(allocated_at: datetime | None, time_limit_minutes: int | None) -> datetime | None:
    """The last moment a participant's save is taken: the deadline plus the grace."""
    deadline = participant_deadline(allocated_at, time_limit_minutes)
    return None if deadline is None else deadline + save_grace()


def release_cutoff(study: Study, now: datetime) -> datetime:
    """Participants given their items before this have passed their deadline and its grace: releasable."""
    return now - timedelta(minutes=study.time_limit_minutes) - save_grace()


def time_over_message() -> str:
    return gettext(
        "Your time for this study has run out: this answer was not saved. The answers you saved in time are kept."
    )


def released_message() -> str:
    return gettext(
        "Your time for this study ran out and this item went to another participant: this answer was not saved. "
        "The answers you saved in time are kept."
    )


def released_item_of(*, user, assignment_id: int) -> ReleasedItem | None:
    """The released copy of the user's former assignment ``assignment_id`` (gone to another participant)."""
    if not user.is_authenticated:
        return None
    return ReleasedItem.objects.filter(participant__user=user, assignment_number=assignment_id).first()


@dataclass(frozen=True)
class ParticipantClock:
    """What a participant's item page shows of their study: the deadline (server time), the server's
    time now (the page's clock follows it), the grace, the return code and the study's page."""

    deadline: datetime
    now: datetime
    grace_seconds: int
    return_code: str
    study_url: str

    @property
    def saves_end(self) -> datetime:
        return self.deadline + timedelta(seconds=self.grace_seconds)


def participant_clock(*, user, project: Project, now: datetime | None = None) -> ParticipantClock | None:
    """The clock of ``user``'s participation in a study of ``project`` (None for anyone else)."""
    found = (
        Participant.objects.filter(user=user, study__project=project)
        .values_list("allocated_at", "study__time_limit_minutes", "return_code", "study__token")
        .first()
    )
    if found is None or found[0] is None:
        return None
    allocated_at, minutes, code, token = found
    return ParticipantClock(
        participant_deadline(allocated_at, minutes),
        now or timezone.now(),
        settings.STUDY_SAVE_GRACE_SECONDS,
        code,
        reverse("study", args=[token]),
    )


def return_code_typed(text: str) -> str:
    """A return code as typed: letters and digits only, in capitals (spaces and dashes dropped)."""
    return "".join(c for c in text.upper() if c.isascii() and c.isalnum())[:32]


def visit_binds(
    *, participant: Participant, browser_participant: int | None, platform: dict[str, str], return_code: str = ""
) -> bool:
    """Whether a visit with ``participant``'s id may act as them: the browser is theirs (the signed
    cookie of an earlier visit names them), the visit brings the platform's per-session value of their
    first visit (``SESSION_PARAMETERS``), or the return code shown to them. An id alone never does:
    platform ids are semi-public (MTurk worker ids) or guessable (a lead's sequential ids)."""
    if browser_participant == participant.pk:
        return True
    for name in SESSION_PARAMETERS:
        first, now = participant.platform.get(name), platform.get(name)
        if first and now and secrets.compare_digest(str(first), str(now)):
            return True
    typed = return_code_typed(return_code)
    return bool(typed) and secrets.compare_digest(typed, participant.return_code)


@dataclass(frozen=True)
class Places:
    """How many more participants the study takes.

    ``full``: participants who can still get ``per_participant`` items each; ``leftover``: items that
    remain after them (they go to later participants as shorter sets); ``missing``: native assignments
    the project still lacks for K per dialogue; ``held_by_expired``: unfinished items of participants past
    the time limit and its grace, released when the next participant arrives (or the lead releases them).
    """

    full: int
    leftover: int
    missing: int
    per_participant: int
    held_by_expired: int


def full_places(needs: np.ndarray, n: int) -> int:
    """The most participants that can each get ``n`` different dialogues without any dialogue getting more
    than its need: the largest m with sum_d min(need_d, m) >= m * n (m participants take at most m
    items of each dialogue). Giving each participant the n neediest dialogues reaches it.

    >>> full_places(np.array([3, 3, 3, 3]), 2)  # 12 items, 2 each
    6
    >>> full_places(np.array([5, 0, 0]), 2)  # only one dialogue lacks annotators
    0
    """
    needs = np.asarray(needs, dtype=np.int64)
    low, high = 0, int(needs.sum()) // n
    while low < high:
        mid = (low + high + 1) // 2
        if np.minimum(needs, mid).sum() >= mid * n:
            low = mid
        else:
            high = mid - 1
    return low


def study_places(*, study: Study, now: datetime | None = None) -> Places:
    """Places left in ``study`` (see ``Places``); every study of the project shares its dialogues."""
    project = study.project
    k = project.annotators_per_dialogue
    held = (
        project.dialogues.filter(quality_item__isnull=True)  # control and training items take no place
        .annotate(held=Count("assignments", filter=Q(assignments__imported=False)))
        .order_by()
        .values_list("held", flat=True)
    )
    needs = np.maximum(k - np.fromiter(held, dtype=np.int64), 0)
    missing = int(needs.sum())
    n = study.items_per_participant
    full = full_places(needs, n) if missing else 0
    return Places(full, missing - full * n, missing, n, _held_by_expired(project, now or timezone.now()))


def opening_without_places(*, project: Project, items_per_participant: int) -> str | None:
    """Why a study of ``project`` with ``items_per_participant`` would open with no (whole) place, in
    words for the lead's form; None when it has at least one."""
    places = study_places(study=Study(project=project, items_per_participant=items_per_participant))
    if places.full:
        return None
    if not places.missing:
        return gettext(
            "With these settings the study opens with 0 places: every dialogue already has its K = %(k)s "
            "annotators (or the project has no dialogues yet)."
        ) % {"k": project.annotators_per_dialogue}
    return ngettext(
        "With these settings the study opens with 0 places: %(missing)s item still lacks annotators, fewer than "
        "the %(n)s items per participant, so participants would get shorter sets. Lower the items per participant, "
        "or confirm below.",
        "With these settings the study opens with 0 places: %(missing)s items still lack annotators, fewer than "
        "the %(n)s items per participant, so participants would get shorter sets. Lower the items per participant, "
        "or confirm below.",
        places.missing,
    ) % {"missing": places.missing, "n": items_per_participant}


def _held_by_expired(project: Project, now: datetime) -> int:
    count = 0
    for study in Study.objects.filter(project=project).only("pk", "time_limit_minutes"):
        cutoff = release_cutoff(study, now)
        count += (
            Assignment.objects.filter(
                annotator__study_participant__study=study,
                annotator__study_participant__allocated_at__lt=cutoff,
                dialogue__project=project,
            )
            .exclude(status=AssignmentStatus.SUBMITTED)
            .count()
        )
    return count


@dataclass(frozen=True)
class TimeLimitChange:
    """Whom a new time limit affects: the participants at work (items given, some unfinished, not
    released), their unfinished items, and how many of them the new limit puts past their deadline
    at once (their unfinished items are released after the grace)."""

    old_minutes: int
    new_minutes: int
    working: int
    items: int
    past_new_limit: int

    @property
    def summary(self) -> str:
        text = ngettext(
            "Changing the time limit from %(old)s to %(new)s moves the deadline of %(working)s participant "
            "at work (%(items)s unfinished items).",
            "Changing the time limit from %(old)s to %(new)s moves the deadline of %(working)s participants "
            "at work (%(items)s unfinished items).",
            self.working,
        ) % {
            "old": minutes_text(self.old_minutes),
            "new": minutes_text(self.new_minutes),
            "working": self.working,
            "items": self.items,
        }
        if self.past_new_limit:
            text += " " + ngettext(
                "%(n)s of them is past the new limit at once: their unfinished items go to other participants.",
                "%(n)s of them are past the new limit at once: their unfinished items go to other participants.",
                self.past_new_limit,
            ) % {"n": self.past_new_limit}
        return text


def time_limit_change(*, study: Study, minutes: int, now: datetime | None = None) -> TimeLimitChange:
    """Whom changing ``study``'s time limit to ``minutes`` affects (see ``TimeLimitChange``)."""
    now = now or timezone.now()
    unfinished = Assignment.objects.filter(
        annotator_id=OuterRef("user_id"), dialogue__project_id=study.project_id
    ).exclude(status=AssignmentStatus.SUBMITTED)
    working = list(
        Participant.objects.filter(study=study, allocated_at__isnull=False, released_at=None)
        .filter(Exists(unfinished))
        .values_list("user_id", "allocated_at")
    )
    items = (
        Assignment.objects.filter(annotator_id__in=[u for u, _a in working], dialogue__project_id=study.project_id)
        .exclude(status=AssignmentStatus.SUBMITTED)
        .count()
        if working
        else 0
    )
    past = sum(participant_deadline(allocated, minutes) < now for _u, allocated in working)
    return TimeLimitChange(study.time_limit_minutes, minutes, len(working), items, past)


def study_by_token(*, token: str) -> Study | None:
    return Study.objects.select_related("project").filter(token=token).first() if token else None


def participant_of(*, user, study: Study) -> Participant | None:
    """The user's participation in ``study``, if the user is one of its participants."""
    if not user.is_authenticated:
        return None
    return Participant.objects.filter(user=user, study=study).first()


def participant_home(*, user, project: Project) -> str | None:
    """The study page a participant of ``project`` goes back to (their queue is the study's page)."""
    token = Participant.objects.filter(user=user, study__project=project).values_list("study__token", flat=True)
    token = token.first()
    return reverse("study", args=[token]) if token else None


class Stage:
    CONSENT = "consent"  # not started: consent text and guidelines
    WORK = "work"  # items to do
    COMPLETE = "complete"  # every item submitted: the completion code
    TIMED_OUT = "timed_out"  # the time limit passed with items unfinished
    FULL = "full"  # consented, but no item was left
    CLOSED = "closed"  # the study closed before this participant started


@dataclass(frozen=True)
class ParticipantState:
    stage: str
    total: int
    done: int
    next_item: int | None
    deadline: datetime | None
    completion_url: str | None


def completion_url(study: Study, participant: Participant) -> str | None:
    """The lead's completion URL with ``{code}``, ``{participant}`` and the platform's ids
    (``{STUDY_ID}``, ``{SESSION_ID}``, ``{assignmentId}``, ``{hitId}``) filled in, URL-quoted."""
    if not study.completion_url:
        return None
    fill = {"code": study.completion_code, "participant": participant.external_id, **participant.platform}
    url = study.completion_url
    for name, value in fill.items():
        url = url.replace("{" + name + "}", quote(str(value), safe=""))
    return url


def participant_state(*, participant: Participant, now: datetime | None = None) -> ParticipantState:
    """Where ``participant`` stands (``Stage``), their progress and the item to continue with."""
    study = participant.study
    deadline = participant_deadline(participant.allocated_at, study.time_limit_minutes)

    def state(stage, total=0, done=0, next_item=None):
        url = completion_url(study, participant) if stage == Stage.COMPLETE else None
        return ParticipantState(stage, total, done, next_item, deadline, url)

    if participant.allocated_at is None:
        if not study.is_open:
            return state(Stage.CLOSED)
        return state(Stage.FULL if participant.consented_at else Stage.CONSENT)
    training = QualityItem.objects.filter(dialogue_id=OuterRef("dialogue_id"), kind=QualityItemKind.TRAINING)
    items = list(
        Assignment.objects.filter(annotator_id=participant.user_id, dialogue__project_id=study.project_id)
        .annotate(training=Exists(training))
        .order_by("-training", "queue_rank", "pk")  # training items first: real items open after them
        .values_list("pk", "status")
    )
    done = sum(status == AssignmentStatus.SUBMITTED for _pk, status in items)
    released = participant.released_at is not None or ReleasedItem.objects.filter(participant=participant).exists()
    if items and done == len(items) and not released:
        return state(Stage.COMPLETE, len(items), done)
    if released or (now or timezone.now()) > deadline:
        return state(Stage.TIMED_OUT, len(items), done)
    if not items:
        return state(Stage.FULL)
    started = [pk for pk, status in items if status == AssignmentStatus.IN_PROGRESS]
    pending = [pk for pk, status in items if status == AssignmentStatus.PENDING]
    return state(Stage.WORK, len(items), done, (started or pending)[0])


# a participant's status as the lead's page says it (the CSV keeps the English words)
PARTICIPANT_STATUS_LABELS = {
    "finished": pgettext_lazy("participant", "finished"),
    "timed out (released)": pgettext_lazy("participant", "timed out (items released)"),
    "timed out": pgettext_lazy("participant", "timed out"),
    "working": pgettext_lazy("participant", "working"),
    "no items left": pgettext_lazy("participant", "no items left"),
    "not started": pgettext_lazy("participant", "not started"),
}


def study_participants(*, study: Study) -> list[dict]:
    """One row per participant for the lead: platform ids, first visit, consent, start, finish (the last
    submission, once every item is submitted), items, submitted, released, seconds worked (released
    drafts included), API token or not, and the status."""
    participants = list(
        study.participants.select_related("user").annotate(has_token=Count("user__auth_token")).order_by("pk")
    )
    users = [p.user_id for p in participants]
    work = {
        row["annotator_id"]: row
        for row in Assignment.objects.filter(annotator_id__in=users, dialogue__project_id=study.project_id)
        .values("annotator_id")
        .annotate(
            items=Count("pk"),
            submitted=Count("pk", filter=Q(status=AssignmentStatus.SUBMITTED)),
            seconds=Sum("seconds_spent"),
            last=Max("submitted_at"),
        )
    }
    released = {
        row["participant_id"]: row
        for row in ReleasedItem.objects.filter(participant__study=study)
        .values("participant_id")
        .annotate(n=Count("pk"), seconds=Sum("seconds_spent"))
    }
    now = timezone.now()
    rows = []
    for p in participants:
        w = work.get(p.user_id, {})
        r = released.get(p.pk, {})
        items, submitted = w.get("items", 0), w.get("submitted", 0)
        finished = w.get("last") if items and submitted == items and not r else None
        deadline = participant_deadline(p.allocated_at, study.time_limit_minutes)
        if finished:
            status = "finished"
        elif r or p.released_at:
            status = "timed out (released)"
        elif deadline and now > deadline:
            status = "timed out"
        elif p.allocated_at:
            status = "working"
        elif p.consented_at:
            status = "no items left"
        else:
            status = "not started"
        rows.append(
            {
                "id": p.pk,
                "external_id": p.external_id,
                "username": p.user.username,
                "study_id": p.platform.get("STUDY_ID", ""),
                "session_id": p.platform.get("SESSION_ID", ""),
                "assignment_id": p.platform.get("assignmentId", ""),
                "hit_id": p.platform.get("hitId", ""),
                "first_visit": p.created_at,
                "consented": p.consented_at,
                "started": p.allocated_at,
                "finished": finished,
                "items": items,
                "submitted": submitted,
                "released": r.get("n", 0),
                "seconds_worked": (w.get("seconds") or 0) + (r.get("seconds") or 0),
                "api_token": bool(p.has_token),
                "status": status,
                "status_label": PARTICIPANT_STATUS_LABELS.get(status, status),
            }
        )
    return rows


CSV_COLUMNS = (
    "external_id",
    "status",
    "study_id",
    "session_id",
    "assignment_id",
    "hit_id",
    "first_visit",
    "consented",
    "started",
    "finished",
    "items",
    "submitted",
    "released",
    "seconds_worked",
)


def participants_table(*, study: Study) -> DownloadTable:
    """``study_participants`` as a download (CSV for approving payments on the platform, or JSON)."""
    return DownloadTable("participants", CSV_COLUMNS, lambda: study_participants(study=study))
