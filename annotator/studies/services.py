"""Crowdsourced studies: opening and closing them, participants arriving, their items, the time limit.

A participant's items are ordinary assignments of their own user. Handing them out is one
transaction that locks the project's row (as ``assignments_create_balanced`` does), so two arrivals,
or an arrival and the lead's assignment run, never count the same free places; the database's unique
constraints (one participant per study and platform id, one assignment per annotator and dialogue)
back that up. The items are the ``items_per_participant`` dialogues that most lack annotators: a
dialogue never gets more than K (``Project.annotators_per_dialogue``) native assignments, counting
every annotator's, and with balanced needs every dialogue ends with exactly K. On a project with an adaptive
budget the items are instead the open ones where a label is worth most, capped at ``max_k`` and the budget.

The time limit runs from the moment a participant's items are given. Past it and the grace after it
(``STUDY_SAVE_GRACE_SECONDS``: their page's saves are taken until then), the unfinished items are
released: each draft is kept as a ``ReleasedItem`` and the assignment deleted, so the dialogue lacks an
annotator again and the next participant gets it. Releasing takes the participants and assignments
with ``select_for_update(skip_locked=True)``: a participant whose item is being saved at that moment is
left for the next sweep (the save, checked under the same row lock, lands first), and two sweeps never
release the same item twice. A save that comes after the grace is refused (``ItemClosed``) with the
reason, and one to a released item finds its released copy (``assignment_number``) to say why.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework.authtoken.models import Token

from annotator.handout.selectors.adaptive import adaptive_on
from annotator.handout.services.adaptive import adaptive_items_choose
from annotator.models import (
    Assignment,
    AssignmentStatus,
    Judgement,
    Membership,
    Participant,
    Project,
    ReleasedItem,
    Reordering,
    Role,
    Study,
)
from annotator.pairwise.services.pair_order import pair_orders_fill
from annotator.presets.of_project import project_scheme
from annotator.services.quality_items import quality_assignments_create
from annotator.studies.models import completion_code_new, study_token_new
from annotator.studies.selectors import release_cutoff, time_limit_change

SETTINGS_FIELDS = (
    "name",
    "consent_text",
    "items_per_participant",
    "time_limit_minutes",
    "id_parameter",
    "completion_code",
    "completion_url",
)


class StudyError(ValueError):
    """A refused study action. ``reason`` says which: ``closed`` (no new participants), ``full`` (no items
    left), ``preset`` (the project's scheme cannot run as a study), ``unconfirmed`` (a change of the time
    limit that affects participants at work, not confirmed)."""

    CLOSED = "closed"
    FULL = "full"
    PRESET = "preset"
    UNCONFIRMED = "unconfirmed"

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(message)


def study_create(*, project: Project, name: str, **settings) -> Study:
    """Open a study on ``project`` with a fresh token and, unless given, a fresh completion code.

    ``settings`` are the fields in ``SETTINGS_FIELDS``; they are validated like the model's form
    (``django.core.exceptions.ValidationError`` on bad values). Reordering projects (coherence) cannot
    run as a study: their annotators judge whole permutation sets, not a share of the dialogues.
    """
    if project_scheme(project).reordering:
        label = project_scheme(project).label
        raise StudyError(
            StudyError.PRESET,
            gettext(
                "%(label)s projects cannot run as a study: each annotator reorders a whole permutation set; "
                "add annotators as members instead."
            )
            % {"label": label},
        )
    unknown = set(settings) - set(SETTINGS_FIELDS)
    if unknown:
        raise TypeError(f"unknown study settings: {', '.join(sorted(unknown))}")
    if not settings.get("completion_code"):
        settings["completion_code"] = completion_code_new()
    study = Study(project=project, name=name, **settings)
    study.full_clean()
    study.save()
    return study


def study_update(*, study: Study, confirm_time_limit: bool = False, **settings) -> Study:
    """Change a study's settings (``SETTINGS_FIELDS``); participants who started keep their items.

    A new time limit applies to the participants at work too (their deadline moves): while some are at
    work it needs ``confirm_time_limit``, else ``StudyError`` ``unconfirmed`` says whom it affects.
    """
    unknown = set(settings) - set(SETTINGS_FIELDS)
    if unknown:
        raise TypeError(f"unknown study settings: {', '.join(sorted(unknown))}")
    minutes = settings.get("time_limit_minutes")
    stored = Study.objects.filter(pk=study.pk).values_list("time_limit_minutes", flat=True).first()
    if minutes is not None and minutes != stored and not confirm_time_limit:  # (a form may have set it already)
        study.time_limit_minutes = stored
        change = time_limit_change(study=study, minutes=minutes)
        if change.working:
            raise StudyError(StudyError.UNCONFIRMED, change.summary)
    for name, value in settings.items():
        setattr(study, name, value)
    study.full_clean()
    study.save(update_fields=[*settings])
    return study


def study_set_open(*, study: Study, is_open: bool) -> Study:
    """Close a study (no new participants; those who started carry on) or open it again."""
    Study.objects.filter(pk=study.pk).update(is_open=is_open)
    study.is_open = is_open
    return study


def study_token_rotate(*, study: Study) -> Study:
    """A new token: the old link stops working at once (participants who started continue by session)."""
    study.token = study_token_new()
    study.token_rotated_at = timezone.now()
    study.save(update_fields=["token", "token_rotated_at"])
    return study


def _open_items(project: Project) -> bool:
    """Whether some dialogue still lacks native annotators (checked before a participant is created); with an
    adaptive budget, whether some item is open and the budget not spent."""
    if adaptive_on(project):
        return bool(adaptive_items_choose(project, 0, 1))
    return (
        project.dialogues.filter(quality_item__isnull=True)
        .annotate(held=Count("assignments", filter=Q(assignments__imported=False)))
        .filter(held__lt=project.annotators_per_dialogue)
        .exists()
    )


@transaction.atomic
def _participant_create(*, study: Study, external_id: str, platform: dict[str, str]) -> Participant:
    User = get_user_model()
    user = User(username=f"study{study.pk}-{secrets.token_hex(8)}")
    user.set_unusable_password()  # no password login; the study link signs the participant in
    user.save()
    participant = Participant.objects.create(study=study, user=user, external_id=external_id, platform=platform)
    Membership.objects.create(project_id=study.project_id, user=user, role=Role.ANNOTATOR)
    return participant


def participant_arrive(*, study: Study, external_id: str, platform: dict[str, str] | None = None) -> Participant:
    """``participant_enter``'s participant."""
    return participant_enter(study=study, external_id=external_id, platform=platform).participant


@dataclass(frozen=True)
class Entry:
    participant: Participant
    created: bool  # this visit made the participant (the one the first visit's browser is bound to)


def participant_enter(*, study: Study, external_id: str, platform: dict[str, str] | None = None) -> Entry:
    """The study's participant with the platform id ``external_id``: the one from an earlier visit, or new.

    A new participant gets a user of their own (unusable password, no API token) who is an annotator of
    the project; ``platform`` keeps the platform's other ids of the first visit. New participants come
    only while the study is open and some dialogue lacks annotators, if need be once the items of
    participants past the time limit are released (``StudyError`` ``closed`` or ``full``). Two visits
    with one id at once make one participant (the unique constraint decides; only its winner is
    ``created``).
    """
    found = Participant.objects.filter(study=study, external_id=external_id).select_related("user").first()
    if found is not None:
        return Entry(found, False)
    if not study.is_open:
        raise StudyError(StudyError.CLOSED, gettext("This study is closed: it takes no new participants."))
    if not _open_items(study.project):
        studies_release_expired(project=study.project)  # (or another request just did: look again)
        if not _open_items(study.project):
            raise StudyError(StudyError.FULL, gettext("Every place in this study is taken."))
    try:
        return Entry(_participant_create(study=study, external_id=external_id, platform=dict(platform or {})), True)
    except IntegrityError:
        found = Participant.objects.filter(study=study, external_id=external_id).select_related("user").first()
        if found is None:
            raise
        return Entry(found, False)


def participant_start(*, participant_id: int, now=None) -> Participant:
    """The participant consents and gets their items, once: the same participant never gets a second set.

    Locks the participant, then the project; first releases what expired participants of the project
    left unfinished (``studies_release_expired``), then gives the ``items_per_participant`` dialogues
    that most lack annotators (ties in a random order), in a random order of their own. With fewer
    dialogues lacking annotators the participant gets fewer items; with none, none (``allocated_at``
    stays empty and a later call tries again). Raises ``StudyError`` ``closed`` for a closed study.
    """
    now = now or timezone.now()
    with transaction.atomic():
        participant = (
            Participant.objects.select_for_update(of=("self",)).select_related("study__project").get(pk=participant_id)
        )
        if participant.allocated_at is not None:
            return participant
        study = participant.study
        if not study.is_open:
            raise StudyError(StudyError.CLOSED, gettext("This study is closed: it takes no new participants."))
        participant.consented_at = participant.consented_at or now
        project = Project.objects.select_for_update().get(pk=study.project_id)  # one hand-out at a time
        _release_expired(project, now)
        rng = random.Random(secrets.randbits(64))
        if adaptive_on(project):  # the open items where a label is worth most (annotator.handout.services.adaptive)
            chosen = adaptive_items_choose(project, participant.user_id, study.items_per_participant)
        else:
            chosen = _neediest_dialogues(project, study.items_per_participant, rng)
        ranks = list(range(len(chosen)))
        rng.shuffle(ranks)
        Assignment.objects.bulk_create(
            Assignment(annotator_id=participant.user_id, dialogue_id=d, queue_rank=r) for d, r in zip(chosen, ranks)
        )
        if chosen:  # training items first, and controls at the project's rate among the items (quality control)
            quality_assignments_create(project=project, seed=rng.randrange(2**32), users=[participant.user_id])
            mine = Assignment.objects.filter(annotator_id=participant.user_id).values_list("dialogue_id", flat=True)
            pair_orders_fill(project=project, dialogue_ids=list(mine))  # comparisons: the candidate shown first
        if chosen:
            participant.allocated_at = now
        participant.save(update_fields=["consented_at", "allocated_at"])
    return participant


def _neediest_dialogues(project: Project, n: int, rng: random.Random) -> list[int]:
    """Up to ``n`` dialogues with the most missing native annotators (K minus those assigned), ties shuffled."""
    k = project.annotators_per_dialogue
    held = dict(
        Assignment.objects.filter(dialogue__project=project, imported=False)
        .values_list("dialogue_id")
        .annotate(n=Count("pk"))
    )
    ordinary = project.dialogues.filter(quality_item__isnull=True).values_list("pk", flat=True)
    needs = [(k - held.get(d, 0), rng.random(), d) for d in ordinary]
    needs = sorted((need for need in needs if need[0] > 0), key=lambda t: (-t[0], t[1]))
    return [d for _need, _tie, d in needs[:n]]


def studies_release_expired(*, project: Project, now=None) -> int:
    """Release the unfinished items of the project's participants whose time limit and grace have passed.

    Returns the number of items released. Safe to run at any time and twice at once (see the module
    docstring); participant arrivals run it before handing out items.
    """
    now = now or timezone.now()
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()
        return _release_expired(project, now)


def _release_expired(project: Project, now) -> int:
    released = 0
    unfinished = Assignment.objects.filter(annotator_id=OuterRef("user_id"), dialogue__project_id=project.pk).exclude(
        status=AssignmentStatus.SUBMITTED
    )
    for study in Study.objects.filter(project=project):
        cutoff = release_cutoff(study, now)
        expired = (
            Participant.objects.select_for_update(skip_locked=True)
            .filter(study=study, allocated_at__lt=cutoff, released_at=None)
            .filter(Exists(unfinished))
        )
        for participant in expired:
            released += _release(participant, project, now)
    return released


def _release(participant: Participant, project: Project, now) -> int:
    """Keep each unfinished item's draft as a ``ReleasedItem`` and delete the assignment (its judgements go
    with it); items being saved right now (row locked) wait for the next sweep."""
    items = list(
        Assignment.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(annotator_id=participant.user_id, dialogue__project_id=project.pk)
        .exclude(status=AssignmentStatus.SUBMITTED)
    )
    if not items:
        return 0
    drafts: dict[int, list[dict]] = {a.pk: [] for a in items}
    for assignment_id, key, unit, value in (
        Judgement.objects.filter(assignment_id__in=drafts)
        .order_by("criterion__position", "unit")
        .values_list("assignment_id", "criterion__key", "unit", "value")
    ):
        drafts[assignment_id].append({"criterion": key, "unit": unit, "value": value})
    orders = dict(Reordering.objects.filter(assignment_id__in=drafts).values_list("assignment_id", "submitted_order"))
    ReleasedItem.objects.bulk_create(
        ReleasedItem(
            participant=participant,
            dialogue_id=a.dialogue_id,
            assignment_number=a.pk,
            status=a.status,
            started_at=a.started_at,
            seconds_spent=a.seconds_spent,
            judgements=drafts[a.pk],
            reordering=orders.get(a.pk),
            released_at=now,
        )
        for a in items
    )
    Assignment.objects.filter(pk__in=drafts).delete()
    still_open = (
        Assignment.objects.filter(annotator_id=participant.user_id, dialogue__project_id=project.pk)
        .exclude(status=AssignmentStatus.SUBMITTED)
        .exists()
    )
    if not still_open:
        participant.released_at = now
        participant.save(update_fields=["released_at"])
    return len(items)


def participant_token_grant(*, participant: Participant) -> Token:
    """An API token for a participant (a lead's decision; participants have none otherwise)."""
    token, _created = Token.objects.get_or_create(user=participant.user)
    return token


def participant_token_revoke(*, participant: Participant) -> int:
    """Remove the participant's API token; returns how many were removed (0 or 1)."""
    deleted, _per_model = Token.objects.filter(user=participant.user).delete()
    return deleted
