"""Projects, their members and roles, annotator account settings, and the criteria a project asks about."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.presets import preset_choices

K_MIN, K_MAX = 1, 100  # annotators per dialogue, the same bounds on every path that sets K


class AnnotatorsAre(models.TextChoices):
    """Who the project's annotators are, as the alternative annotator test's margin asks (Calderon et al. 2025:
    epsilon 0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers)."""

    NOT_STATED = "", _("Not stated")
    EXPERTS = "experts", _("Experts")
    SKILLED = "skilled", _("Skilled annotators (trained students or workers)")
    CROWD = "crowd", _("Crowd workers")


class Project(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    preset = models.CharField(max_length=20, choices=preset_choices)  # a callable: a new preset needs no migration
    guidelines = models.TextField(blank=True)
    annotators_per_dialogue = models.PositiveSmallIntegerField(
        default=3, validators=[MinValueValidator(K_MIN), MaxValueValidator(K_MAX)]
    )
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="projects")
    # The lead's wording in the other interface languages (annotator.wording): {language: {"guidelines": str,
    # "questions": {criterion key: str}}}; what is absent comes from the preset's translation, else English.
    wordings = models.JSONField(default=dict, blank=True)
    # The project's scheme: the document of its scheme file (annotator.presets.document), kept with the project so
    # that it is asked what the project does (annotator.presets.of_project) and never reinterpreted when a
    # preset's file changes; the criteria's rows below are the scheme's criteria as judgements refer to them.
    scheme = models.JSONField(default=dict, blank=True)
    # How many times the scheme was changed after the project was created (annotator.services.schemes).
    scheme_version = models.PositiveIntegerField(default=1)
    # single sign-on: {provider group: role}; a user signing in with OpenID Connect whose groups claim names one
    # of these groups becomes a member with that role (annotator.services.sso)
    sso_groups = models.JSONField(default=dict, blank=True)
    annotators_are = models.CharField(
        max_length=10,
        choices=AnnotatorsAre.choices,
        default=AnnotatorsAre.NOT_STATED,
        blank=True,
        help_text="Who annotated: sets the alternative annotator test's margin epsilon for the judges.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class Role(models.TextChoices):
    LEAD = "lead", _("Lead")
    ANNOTATOR = "annotator", _("Annotator")
    ADJUDICATOR = "adjudicator", _("Adjudicator")  # settles disputed units; judges no items of their own


class Membership(models.Model):
    """A user's role in a project. Imported annotators keep the source's id and order."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=Role.choices)
    imported = models.BooleanField(default=False, help_text="An annotator account created by an import.")
    source_key = models.CharField(max_length=100, blank=True, help_text="The annotator's id in the source collection.")
    rank = models.PositiveIntegerField(default=0, help_text="Order of annotators in exports.")
    active = models.BooleanField(default=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="membership_unique_user")]
        indexes = [models.Index(fields=["project", "role"])]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.project}"


class AccountSettings(models.Model):
    """A user's own choices about their account."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_settings")
    findable_by_leads = models.BooleanField(
        default=False, help_text="Project leads may add this account to their projects by its exact username."
    )
    language = models.CharField(
        max_length=10,
        blank=True,
        choices=settings.LANGUAGES,
        help_text="The interface language the user chose; empty: follow the browser (Accept-Language).",
    )

    def __str__(self) -> str:
        return f"account settings of {self.user}"


class Unit(models.TextChoices):
    DIALOGUE = "dialogue", _("Dialogue")
    POST = "post", _("Post")
    TURN = "turn", _("Turn (utterance block)")
    SYSTEM_TURN = "system_turn", _("System turn")
    REPLY = "reply", _("Reply")


class Level(models.TextChoices):
    NOMINAL = "nominal", _("Nominal")
    ORDINAL = "ordinal", _("Ordinal")
    INTERVAL = "interval", _("Interval")
    RATIO = "ratio", _("Ratio")


class AppliesTo(models.TextChoices):
    """Which units of its kind (and speaker) a criterion asks about (``annotator.presets.UnitRule``)."""

    EVERY = "every", _("Every one")
    RESPONSES = "responses", _("Responses (after another speaker's turn)")
    LAST = "last", _("The last one")


class Criterion(models.Model):
    """One question asked of every unit of a kind.

    ``values`` is the ordered scale: a list of ``{"value": str, "label": str}`` objects, each
    optionally with ``"speaker"`` when the allowed values depend on who wrote the unit
    (nugget types differ for customer and helpdesk posts).
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="criteria")
    key = models.CharField(max_length=40)
    label = models.CharField(max_length=200)
    question = models.TextField(blank=True)
    unit = models.CharField(max_length=20, choices=Unit.choices)
    values = models.JSONField()
    level = models.CharField(max_length=20, choices=Level.choices)
    speaker = models.CharField(max_length=40, blank=True, help_text="Only units by this speaker; blank for all.")
    applies_to = models.CharField(max_length=20, choices=AppliesTo.choices, default=AppliesTo.EVERY)
    # {"value": str, "label": str, "key"?: str}: the answer "does not apply", stored as that value, counted as
    # an answer, left out of agreement and gold (annotator.selectors.judgement_arrays); null: none
    not_applicable = models.JSONField(null=True, blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["project", "position"]
        constraints = [models.UniqueConstraint(fields=["project", "key"], name="criterion_unique_key")]

    def __str__(self) -> str:
        return f"{self.project}:{self.key}"

    def allowed_values(self, speaker: str | None = None) -> list[str]:
        """The scale's values in order; for a speaker, only the values that apply to them."""
        return [v["value"] for v in self.values if speaker is None or v.get("speaker") in (None, speaker)]

    @property
    def not_applicable_value(self) -> str | None:
        """The stored value of the "not applicable" answer, or None when the criterion has none."""
        return self.not_applicable["value"] if self.not_applicable else None

    def answers(self, speaker: str | None = None) -> list[str]:
        """What may be stored: the scale's values (``allowed_values``), then "not applicable" if it has one."""
        na = self.not_applicable_value
        return self.allowed_values(speaker) + ([na] if na is not None else [])

    @property
    def speakers(self) -> list[str]:
        """Speakers with a scale of their own, in the order the scale names them."""
        seen: list[str] = []
        for v in self.values:
            if v.get("speaker") and v["speaker"] not in seen:
                seen.append(v["speaker"])
        return seen
