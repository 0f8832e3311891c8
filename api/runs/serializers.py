"""Input and output shapes of the runs' endpoints (``api.runs.views``)."""

from rest_framework import serializers

from evaluation.models import Run
from evaluation.runs.selectors.freshness import run_stale_reason
from evaluation.selectors.fingerprint import judgements_fingerprint


class RunOut(serializers.ModelSerializer):
    """A run; ``stale`` when its scores were computed against an earlier gold than the current one (they are
    being scored again; the comparisons leave it out meanwhile), with the reason in ``stale_reason``;
    ``coverage`` the share of the gold it was scored on (``complete`` false: fewer dialogues than the gold)."""

    stale = serializers.SerializerMethodField()
    stale_reason = serializers.SerializerMethodField()
    coverage = serializers.SerializerMethodField(
        help_text="The gold the run was scored on: {dialogues, gold_dialogues, complete, missing (the first 20 "
        "ids), n_missing} (DBDC: turns and gold_turns too); null for a run not scored yet or scored before "
        "coverage was recorded."
    )

    class Meta:
        model = Run
        fields = [
            "id",
            "name",
            "kind",
            "status",
            "error",
            "source_name",
            "options",
            "scores",
            "created_at",
            "queued_at",
            "scored_at",
            "stale",
            "stale_reason",
            "coverage",
        ]

    def get_coverage(self, run: Run) -> dict | None:
        return (run.scores or {}).get("coverage")

    def _reason(self, run: Run) -> str | None:
        if "gold_fingerprint" not in self.context:  # once per response, also for a list
            self.context["gold_fingerprint"] = judgements_fingerprint(run.project)
        return run_stale_reason(run, self.context["gold_fingerprint"])

    def get_stale(self, run: Run) -> bool:
        return self._reason(run) is not None

    def get_stale_reason(self, run: Run) -> str | None:
        return self._reason(run)


class RunIn(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    files = serializers.ListField(child=serializers.FileField(), min_length=1, max_length=5000)
    alpha = serializers.FloatField(min_value=0, max_value=1, default=0.5)
    strict = serializers.BooleanField(default=False)
    threshold = serializers.FloatField(
        min_value=0,
        max_value=1,
        default=0.0,
        help_text="Breakdown projects only: the DBDC3 evaluation script's -t. A turn's gold label is its most "
        "frequent label if that label's share of the annotators is at least t, otherwise NB.",
    )
