"""Stored results of the scoring library: project statistics and scored runs."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.models import Project
from evaluation.json_codec import OrjsonDecoder, OrjsonEncoder


class ProjectStatistics(models.Model):
    """The latest statistics of a project, with what they cover and how they were made."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="statistics")
    payload = models.JSONField(encoder=OrjsonEncoder, decoder=OrjsonDecoder)
    n_judgements = models.PositiveIntegerField()
    fingerprint = models.CharField(max_length=64, help_text="Digest of the judgements the payload covers.")
    library_version = models.CharField(max_length=20)
    computed_at = models.DateTimeField()
    checked_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the judgements were last read for these statistics (computed, or found unchanged): "
        "recomputation requests up to then are covered.",
    )

    def __str__(self) -> str:
        return f"statistics of {self.project} at {self.computed_at:%Y-%m-%d %H:%M}"


class GoldCache(models.Model):
    """A project's per-unit value counts (the gold distributions' counts) as stored arrays.

    Valid while ``fingerprint`` equals the judgements' fingerprint (the one the statistics use), so
    that scoring a run reads these instead of every judgement (``evaluation.services.gold_cache``).
    """

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="gold_cache")
    fingerprint = models.CharField(max_length=64)
    arrays = models.BinaryField(help_text="numpy .npz of each criterion's units and counts, and the turn speakers.")
    computed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"gold counts of project {self.project_id}"


class ModelReliability(models.Model):
    """Each annotator's reliability as the latent-truth models (Dawid-Skene, GLAD, MACE) estimate it.

    Estimated on the heavy queue after the statistics (``evaluation.services.model_reliability``): the models
    take seconds even on small projects, too long for the recomputation that follows every submission. Valid
    while ``fingerprint`` equals the judgements' fingerprint.
    """

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="model_reliability")
    fingerprint = models.CharField(max_length=64)
    payload = models.JSONField(help_text="criterion -> {methods: {method: {reliability, skipped}}, annotators}")
    computed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"model reliability of project {self.project_id}"


class RunKind(models.TextChoices):
    STC3 = "stc3", "STC-3 / DialEval submission"
    DBDC = "dbdc", "DBDC labels"
    REORDERING = "reordering", "Annotators' reorderings"


class RunStatus(models.TextChoices):
    PENDING = "pending", _("Waiting to be scored")
    SCORED = "scored", _("Scored")
    FAILED = "failed", _("Rejected")


class Run(models.Model):
    """A system's submission scored against the project's gold data."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=RunKind.choices)
    status = models.CharField(max_length=20, choices=RunStatus.choices, default=RunStatus.SCORED)
    error = models.TextField(blank=True)
    source = models.BinaryField(
        null=True, blank=True, help_text="The run's files as a zip, kept to score it again when the gold changes."
    )
    queued_at = models.DateTimeField(
        null=True, blank=True, help_text="When scoring was last handed to the workers; empty while it could not be."
    )
    source_name = models.CharField(max_length=500, blank=True)
    options = models.JSONField(default=dict, blank=True)
    scores = models.JSONField(default=dict, blank=True, encoder=OrjsonEncoder, decoder=OrjsonDecoder)
    per_dialogue = models.JSONField(
        default=dict,
        blank=True,
        encoder=OrjsonEncoder,
        decoder=OrjsonDecoder,
        help_text="dialogue id -> metric -> value",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    scored_at = models.DateTimeField(null=True, blank=True)
    gold_fingerprint = models.CharField(
        max_length=64,
        blank=True,
        help_text="The judgements' fingerprint of the gold the scores were computed against; another than the "
        "current one means the scores are stale.",
    )

    class Meta:
        ordering = ["project", "created_at"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="run_unique_name")]

    def __str__(self) -> str:
        return f"{self.project}:{self.name}"


class StatisticsJob(models.Model):
    """Coalesces recomputation requests: while one is pending, further submissions add nothing."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="statistics_job")
    pending = models.BooleanField(default=False)
    requested_at = models.DateTimeField(null=True, blank=True)
    changed_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="The last write that changed what the judgements count (each asks for the statistics; a lead's "
        "explicit request does not move it): part of the version the lead's stored results are compared with.",
    )
    due_at = models.DateTimeField(
        null=True, blank=True, help_text="When the pending recomputation was due to start on a worker."
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    last_duration = models.FloatField(default=0.0, help_text="Seconds the last finished recomputation took.")
    last_error = models.TextField(blank=True)
    recomputations = models.PositiveIntegerField(default=0, help_text="How many times the workers recomputed.")
    models_pending = models.BooleanField(
        default=False, help_text="An estimate of the latent-truth models' reliability is queued on the heavy queue."
    )
    models_due_at = models.DateTimeField(null=True, blank=True, help_text="When the queued estimate was due to start.")
    models_last_duration = models.FloatField(
        default=0.0, help_text="Seconds the last estimate took (with the statistics recomputed to carry it)."
    )

    def __str__(self) -> str:
        return f"statistics job of project {self.project_id}"


class RunComparison(models.Model):
    """Significance and stability of a project's scored runs on one metric (three or more runs)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="run_comparisons")
    metric = models.CharField(max_length=100)
    payload = models.JSONField()
    error = models.TextField(blank=True, help_text="Why the comparison could not be computed, in the service's words.")
    computed_at = models.DateTimeField()
    gold_fingerprint = models.CharField(
        max_length=64, blank=True, help_text="The gold the compared runs were all scored against."
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "metric"], name="comparison_unique_metric")]

    def __str__(self) -> str:
        return f"{self.metric} comparison of project {self.project_id}"


class LiveState(models.Model):
    """A project's additive statistics state (``evaluation.services.incremental``): its population when built.

    Saves that submit or reopen an item keep the state's counts; a change of the population (the source,
    the excluded annotators, the control and training items no longer those recorded here) or an import
    rebuilds it from the judgements.
    """

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="live_state")
    source = models.CharField(max_length=20)
    excluded = models.JSONField(default=list, help_text="Excluded annotators' user ids when built.")
    quality_dialogues = models.JSONField(default=list, help_text="Control and training items when built.")
    built_at = models.DateTimeField(null=True, blank=True, help_text="When the last rebuild committed (never: empty).")
    rebuilt_because = models.CharField(max_length=200, blank=True)
    generation = models.PositiveIntegerField(
        default=0, help_text="Which generation of unit counts (``LiveUnitCounts.generation``) is the state's."
    )
    changes = models.PositiveIntegerField(default=0, help_text="Structural changes marked so far (a counter).")
    stale_since = models.DateTimeField(
        null=True, blank=True, help_text="The first structural change the figures do not include yet."
    )
    stale_because = models.CharField(max_length=40, blank=True, help_text="The last such change (a reason code).")
    rebuilding_since = models.DateTimeField(null=True, blank=True, help_text="A rebuild is reading the judgements.")
    rebuild_covers = models.PositiveIntegerField(default=0, help_text="``changes`` when the running rebuild began.")
    pending_since = models.DateTimeField(
        null=True, blank=True, help_text="The first structural change marked while a rebuild was running."
    )
    rebuild_seconds = models.FloatField(null=True, blank=True, help_text="How long the last rebuild took.")

    def __str__(self) -> str:
        return f"live statistics of project {self.project_id}"


class LiveUnitCounts(models.Model):
    """One unit's label counts on one criterion (comma-separated, in the criterion's scale order)."""

    criterion = models.ForeignKey("annotator.Criterion", on_delete=models.CASCADE, related_name="+")
    dialogue = models.ForeignKey("annotator.Dialogue", on_delete=models.CASCADE, related_name="+")
    unit = models.PositiveIntegerField()
    counts = models.CharField(max_length=400)
    generation = models.PositiveIntegerField(
        default=0, help_text="The rebuild that wrote the row; only the state's generation is read."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["criterion", "dialogue", "unit", "generation"], name="liveunitcounts_unique_generation"
            ),
        ]

    def __str__(self) -> str:
        return f"counts {self.counts} of unit {self.unit} of dialogue {self.dialogue_id}"


class LiveTouchedDialogue(models.Model):
    """A dialogue whose judgements a save changed while a rebuild of the project's state was reading them: the
    rebuild reads it again under the state's lock before its figures replace the state's."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    dialogue = models.ForeignKey("annotator.Dialogue", on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "dialogue"], name="livetoucheddialogue_unique")]

    def __str__(self) -> str:
        return f"dialogue {self.dialogue_id} changed during a rebuild"


class LiveAgreementTerm(models.Model):
    """One integer sum over the units with ``raters`` labels on a criterion.

    ``first = second = -1``: how many such units; ``second = -1``: the labels of category ``first``;
    otherwise sum_u n_u,first * n_u,second - [first = second] n_u,first (the pairs behind Fleiss' and
    Randolph's agreement, its trace, and Krippendorff's coincidences, once divided by raters - 1).
    """

    criterion = models.ForeignKey("annotator.Criterion", on_delete=models.CASCADE, related_name="+")
    raters = models.PositiveIntegerField()
    first = models.SmallIntegerField()
    second = models.SmallIntegerField()
    n = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["criterion", "raters", "first", "second"], name="liveagreementterm_unique"),
        ]

    def __str__(self) -> str:
        return f"term ({self.first}, {self.second}) = {self.n} over units with {self.raters} labels"


class LiveAnnotatorCount(models.Model):
    """How many counted items and judgements an annotator has in a project."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    items = models.IntegerField(default=0)
    judgements = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "annotator"], name="liveannotatorcount_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.items} items, {self.judgements} judgements by {self.annotator_id}"
