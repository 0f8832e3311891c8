"""Projects, dialogues, criteria, assignments and judgements.

The judgements table is the reliability data every statistic reads: one row is one value
given by one annotator (through an assignment) for one criterion on one unit of a dialogue.
A unit is addressed by an integer whose meaning the criterion's unit fixes: 0 for the
dialogue itself, the post's position for post/system-turn/reply units, the utterance
block's index for turn units.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.presets import preset_choices

K_MIN, K_MAX = 1, 100  # annotators per dialogue, the same bounds on every path that sets K


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
    def speakers(self) -> list[str]:
        """Speakers with a scale of their own, in the order the scale names them."""
        seen: list[str] = []
        for v in self.values:
            if v.get("speaker") and v["speaker"] not in seen:
                seen.append(v["speaker"])
        return seen


class Dialogue(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="dialogues")
    external_id = models.CharField(max_length=200)
    language = models.CharField(max_length=20, blank=True)
    source_meta = models.JSONField(default=dict, blank=True, help_text="Source fields kept for a faithful export.")
    position = models.PositiveIntegerField(default=0, help_text="Import order.")
    created_at = models.DateTimeField(auto_now_add=True)
    batch = models.ForeignKey("ImportBatch", on_delete=models.SET_NULL, null=True, blank=True, related_name="dialogues")

    class Meta:
        ordering = ["project", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["project", "external_id"], name="dialogue_unique_external_id")]

    def __str__(self) -> str:
        return self.external_id


class Post(models.Model):
    """One piece of text by one speaker; consecutive posts of a speaker form an utterance block."""

    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="posts")
    position = models.PositiveIntegerField()
    speaker = models.CharField(max_length=40)
    text = models.TextField()
    utterance_block = models.PositiveIntegerField()
    source_turn_index = models.IntegerField(null=True, blank=True)
    source_meta = models.JSONField(default=dict, blank=True)
    source_annotated = models.BooleanField(
        null=True,
        blank=True,
        help_text="Whether the source collection judged this post (DBDC logs with labels); empty when the "
        "source does not say (a new collection). The preset's unit rule reads it.",
    )

    class Meta:
        ordering = ["dialogue", "position"]
        constraints = [models.UniqueConstraint(fields=["dialogue", "position"], name="post_unique_position")]

    def __str__(self) -> str:
        return f"{self.dialogue}#{self.position} {self.speaker}"


class AssignmentStatus(models.TextChoices):
    PENDING = "pending", _("Not started")
    IN_PROGRESS = "in_progress", _("In progress")
    SUBMITTED = "submitted", _("Submitted")


class Assignment(models.Model):
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="assignments")
    status = models.CharField(max_length=20, choices=AssignmentStatus.choices, default=AssignmentStatus.PENDING)
    imported = models.BooleanField(default=False, help_text="Judgements taken from a source collection.")
    started_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    seconds_spent = models.PositiveIntegerField(default=0)
    shown_order = models.JSONField(
        null=True, blank=True, help_text="Ordering tasks: original positions in shown order."
    )
    permutation_set = models.PositiveSmallIntegerField(null=True, blank=True)
    queue_rank = models.PositiveIntegerField(default=0, help_text="Position in the annotator's queue (random order).")
    version = models.PositiveIntegerField(
        default=0, help_text="Counts the saves of this item; a client sends back the version it last saw."
    )
    reopened_at = models.DateTimeField(null=True, blank=True)
    reopen_reason = models.TextField(blank=True, help_text="Why the lead reopened the item; shown to the annotator.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["annotator", "dialogue"], name="assignment_unique_annotator")]
        # submitted_at: the dashboard counts the items submitted since the statistics were computed
        indexes = [models.Index(fields=["annotator", "status"]), models.Index(fields=["submitted_at"])]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.dialogue}"


class Judgement(models.Model):
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="judgements")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="judgements")
    unit = models.PositiveIntegerField(help_text="0 for the dialogue; post position; or utterance block index.")
    value = models.CharField(max_length=40)
    extra = models.JSONField(null=True, blank=True, help_text="Source fields kept for export (comments...).")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "criterion", "unit"], name="judgement_unique_unit"),
        ]
        indexes = [models.Index(fields=["criterion", "unit"])]

    def __str__(self) -> str:
        return f"{self.criterion.key}[{self.unit}]={self.value}"


class Reordering(models.Model):
    """An annotator's reconstruction of a permuted dialogue: original positions in submitted order."""

    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="reordering")
    submitted_order = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"reordering of assignment {self.assignment_id}"


class GoldCount(models.Model):
    """Per-unit value counts published without per-annotator labels (NLPCC)."""

    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="gold_counts")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="gold_counts")
    unit = models.PositiveIntegerField()
    value = models.CharField(max_length=40)
    count = models.PositiveIntegerField()
    n_annotators = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["dialogue", "criterion", "unit", "value"], name="goldcount_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.count} x {self.value} for unit {self.unit} of dialogue {self.dialogue_id}"


class ImportStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for a worker")
    RUNNING = "running", _("Importing")
    DONE = "done", _("Imported")
    FAILED = "failed", _("Refused")
    REMOVED = "removed", _("Removed")


class ImportBatch(models.Model):
    """One import: the background job that reads an uploaded file and, once done, the batch of
    dialogues it wrote (``Dialogue.batch``), which a lead can remove as a whole.

    Progress while it runs: ``dialogues_read`` (the check of every dialogue against the project,
    before anything is written), then ``dialogues_written`` of ``dialogues_total`` and
    ``rows_written`` (dialogues, posts, assignments, judgements and gold counts).
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="import_batches")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    file_names = models.CharField(max_length=500)
    requested_format = models.CharField(max_length=20, default="auto", help_text="As chosen: auto detects.")
    format = models.CharField(max_length=40, blank=True, help_text="The format read (detected or chosen).")
    language = models.CharField(max_length=20, blank=True, help_text="Blank: guessed from the file name.")
    status = models.CharField(max_length=20, choices=ImportStatus.choices, default=ImportStatus.PENDING)
    source = models.BinaryField(null=True, blank=True, help_text="The uploaded file, kept until imported.")
    dialogues_read = models.PositiveIntegerField(default=0)
    dialogues_total = models.PositiveIntegerField(null=True, blank=True)
    dialogues_written = models.PositiveIntegerField(default=0)
    rows_written = models.PositiveBigIntegerField(default=0)
    posts = models.PositiveIntegerField(default=0)
    judgements = models.PositiveIntegerField(default=0)
    gold_counts = models.PositiveIntegerField(default=0)
    annotators_created = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    error_detail = models.JSONField(default=dict, blank=True, help_text="file, record, field and message")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    removed_at = models.DateTimeField(null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["project", "-created_at", "-pk"]
        indexes = [models.Index(fields=["project", "-created_at"])]

    def __str__(self) -> str:
        return f"import {self.pk} of {self.file_names} into {self.project}"


# Crowdsourced studies live in their own module; imported here so that they belong to this app.
from annotator.study_models import Participant, ReleasedItem, Study  # noqa: E402, F401

# -- Quality control (annotator.services.quality_items, qualification, exclusions, adjudication) ---------


class SourceFilter(models.TextChoices):
    ALL = "all", _("All annotators")
    IMPORTED = "imported", _("Imported annotators only (the source collection's)")
    OWN = "own", _("The project's own annotators only")


class QualitySettings(models.Model):
    """A project's quality-control settings; a project without a row has the defaults."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="quality_settings")
    control_rate = models.FloatField(
        default=0.0, help_text="Share of each annotator's queue made of control items (0.1: one in ten)."
    )
    default_tolerance = models.PositiveSmallIntegerField(
        default=0, help_text="Scale points an answer on an ordered scale may be off and still count (uploads)."
    )
    pass_mark = models.FloatField(default=0.8, help_text="Share of training answers to get right to qualify.")
    too_fast_seconds = models.PositiveIntegerField(default=10, help_text="Items submitted faster are too fast.")
    source = models.CharField(
        max_length=20, choices=SourceFilter.choices, default=SourceFilter.ALL, help_text="Whose judgements count."
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"quality settings of {self.project}"


class QualityItemKind(models.TextChoices):
    CONTROL = "control", _("Control item (mixed into queues)")
    TRAINING = "training", _("Training item (qualification)")


class QualityItem(models.Model):
    """A dialogue with known answers. Its judgements are never part of gold data or agreement."""

    dialogue = models.OneToOneField(Dialogue, on_delete=models.CASCADE, related_name="quality_item")
    kind = models.CharField(max_length=20, choices=QualityItemKind.choices)
    explanation = models.TextField(blank=True, help_text="Shown to annotators beside the expected answers.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.kind} item {self.dialogue}"


class ExpectedAnswer(models.Model):
    item = models.ForeignKey(QualityItem, on_delete=models.CASCADE, related_name="answers")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="expected_answers")
    unit = models.PositiveIntegerField()
    value = models.CharField(max_length=40)
    tolerance = models.PositiveSmallIntegerField(default=0, help_text="Scale points (ordered scales only).")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "criterion", "unit"], name="expectedanswer_unique_unit"),
        ]

    def __str__(self) -> str:
        return f"{self.criterion.key}[{self.unit}]={self.value}"


class Qualification(models.Model):
    """An annotator's qualification: passed (at ``passed_at`` with ``score``) or let in by a lead."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="qualifications")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qualifications")
    score = models.FloatField(null=True, blank=True)
    passed_at = models.DateTimeField(null=True, blank=True)
    admitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    admitted_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="qualification_unique_user")]

    def __str__(self) -> str:
        return f"qualification of {self.user} in {self.project}"

    @property
    def open(self) -> bool:
        return self.passed_at is not None or self.admitted_at is not None


class AnnotatorExclusion(models.Model):
    """An annotator left out of gold data and statistics, with the lead's reason."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="exclusions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="exclusions")
    reason = models.TextField()
    excluded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="exclusion_unique_user")]

    def __str__(self) -> str:
        return f"{self.user} excluded from {self.project}"


class Adjudication(models.Model):
    """The final label of a disputed unit, set by a lead or an adjudicator, with their note."""

    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="adjudications")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="adjudications")
    unit = models.PositiveIntegerField()
    value = models.CharField(max_length=40)
    note = models.TextField(blank=True)
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["dialogue", "criterion", "unit"], name="adjudication_unique_unit"),
        ]

    def __str__(self) -> str:
        return f"{self.criterion.key}[{self.unit}] of {self.dialogue} = {self.value}"
