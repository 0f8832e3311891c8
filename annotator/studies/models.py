"""Crowdsourced studies: a public link that turns a recruiting platform's participant into an annotator.

A ``Study`` on a project has a long random ``token`` (the link ``/study/<token>/``, rotatable), the
consent text, the number of items each participant gets, a time limit and the completion code and
URL the platform expects. A ``Participant`` binds a platform's participant id (Prolific's
``PROLIFIC_PID``, MTurk's ``workerId``...) to a user of their own, who has no usable password and no
API token; their items are ordinary assignments. Unfinished items of a participant who ran out of
time go to the next participant: the draft is kept as a ``ReleasedItem`` (not counted anywhere).

A participant is bound to what only they have (see docs/studies.md): the first visit's browser (a
signed cookie), the platform's per-session value of that visit (Prolific's ``SESSION_ID``, MTurk's
``assignmentId``, kept in ``platform``) or their ``return_code``, shown to them on their pages.

Re-exported by ``annotator.models``, like every model of the app.
"""

from __future__ import annotations

import secrets
import string

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator, URLValidator
from django.db import models
from django.utils.translation import gettext_lazy

from annotator.models.dialogues import Dialogue
from annotator.models.projects import Project

TOKEN_BYTES = 32  # secrets.token_urlsafe(32): 43 characters, 256 random bits
CODE_ALPHABET = string.ascii_uppercase + string.digits
RETURN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: read off a screen and typed again
RETURN_CODE_LENGTH = 10  # 50 random bits


def study_token_new() -> str:
    """A fresh study token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def completion_code_new() -> str:
    """A fresh completion code: 8 random capitals and digits (the lead may set the platform's own)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))


def return_code_new() -> str:
    """A fresh return code: 10 characters of 32 that cannot be misread, 50 random bits."""
    return "".join(secrets.choice(RETURN_CODE_ALPHABET) for _ in range(RETURN_CODE_LENGTH))


parameter_name_validator = RegexValidator(
    r"^[A-Za-z_][A-Za-z0-9_.\-]{0,63}$",
    gettext_lazy("A parameter name is a letter or _ followed by letters, digits, _ . or - (at most 64 characters)."),
)
completion_code_validator = RegexValidator(
    r"^[A-Za-z0-9_\-]{1,64}$", gettext_lazy("A completion code is 1 to 64 letters, digits, _ or -.")
)
completion_url_validator = URLValidator(schemes=["https", "http"], message=gettext_lazy("Give an http(s) URL."))


class Study(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="studies")
    name = models.CharField(max_length=200)
    token = models.CharField(max_length=64, unique=True, default=study_token_new, editable=False)
    is_open = models.BooleanField(default=True, help_text="Closed: no new participants; those started continue.")
    consent_text = models.TextField(blank=True, help_text="Shown with the guidelines before any work.")
    items_per_participant = models.PositiveSmallIntegerField(default=10, validators=[MinValueValidator(1)])
    time_limit_minutes = models.PositiveIntegerField(
        default=60,
        validators=[MinValueValidator(1), MaxValueValidator(60 * 24 * 365)],  # at most a year
        help_text="After this many minutes from the start, a participant's unfinished items go to others.",
    )
    id_parameter = models.CharField(
        max_length=64,
        blank=True,
        validators=[parameter_name_validator],
        help_text="A query parameter of your own that carries the participant id (besides PROLIFIC_PID, "
        "workerId and participant).",
    )
    completion_code = models.CharField(
        max_length=64,
        default=completion_code_new,
        validators=[completion_code_validator],
        help_text="Shown to a participant who finished (use the platform's code, e.g. Prolific's).",
    )
    completion_url = models.CharField(
        max_length=1000,
        blank=True,
        validators=[completion_url_validator],
        help_text="Where a participant who finished is sent, e.g. "
        "https://app.prolific.com/submissions/complete?cc={code}; {code} and {participant} are filled in.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    token_rotated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["project", "pk"]
        constraints = [
            models.CheckConstraint(condition=models.Q(items_per_participant__gte=1), name="study_items_positive"),
            models.CheckConstraint(condition=models.Q(time_limit_minutes__gte=1), name="study_time_limit_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.project}: {self.name}"


class Participant(models.Model):
    """A platform's participant in a study, with a user of their own (no password, no API token)."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants")
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_participant")
    external_id = models.CharField(max_length=200, help_text="The platform's participant id (PROLIFIC_PID...).")
    platform = models.JSONField(
        default=dict, blank=True, help_text="The platform's other ids from the first visit (STUDY_ID, hitId...)."
    )
    return_code = models.CharField(
        max_length=16,
        default=return_code_new,
        help_text="Shown to the participant: with it, their id opens the study in another browser.",
    )
    created_at = models.DateTimeField(auto_now_add=True, help_text="The first visit.")
    consented_at = models.DateTimeField(null=True, blank=True)
    allocated_at = models.DateTimeField(null=True, blank=True, help_text="Items given; the time limit runs from here.")
    released_at = models.DateTimeField(
        null=True, blank=True, help_text="The time limit passed and the unfinished items went to others."
    )

    class Meta:
        ordering = ["study", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["study", "external_id"], name="participant_unique_external_id"),
        ]

    def __str__(self) -> str:
        return f"{self.external_id} in {self.study}"


class ReleasedItem(models.Model):
    """A participant's unfinished item, taken back after the time limit: the draft, kept but not counted."""

    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="released_items")
    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="released_items")
    assignment_number = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="The released assignment's id: a late save to it is told why it is gone."
    )
    status = models.CharField(max_length=20, help_text="The assignment's status when it was released.")
    started_at = models.DateTimeField(null=True, blank=True)
    seconds_spent = models.PositiveIntegerField(default=0)
    judgements = models.JSONField(default=list, help_text='[{"criterion", "unit", "value"}] of the draft.')
    reordering = models.JSONField(null=True, blank=True)
    released_at = models.DateTimeField()

    class Meta:
        ordering = ["participant", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["participant", "dialogue"], name="released_item_unique_dialogue"),
        ]

    def __str__(self) -> str:
        return f"{self.dialogue} released from {self.participant}"
