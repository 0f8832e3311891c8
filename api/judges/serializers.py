"""The judges' endpoints: a judge as listed, and what creates one (an uploaded file, or a run)."""

from __future__ import annotations

from rest_framework import serializers

from annotator.judges.services.labels import JUDGE_FORMATS, NAME_MAX
from annotator.models import JudgeKind, JudgeStatus


class JudgeOut(serializers.Serializer):
    """A judge of the project (``annotator.judges.selectors.judges_of``); never its endpoint's key."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=JudgeKind.choices)
    description = serializers.CharField()
    source = serializers.JSONField(help_text="Where the labels came from: files and format, or the run.")
    status = serializers.ChoiceField(choices=JudgeStatus.choices)
    error = serializers.CharField()
    n_labels = serializers.IntegerField(help_text="Units labelled.")
    n_missing = serializers.IntegerField(help_text="Units asked about without a usable answer.")
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    units_total = serializers.IntegerField(help_text="Endpoint judges: units to ask about.")
    units_done = serializers.IntegerField()
    endpoint = serializers.SerializerMethodField(help_text="Endpoint judges: URL, model, prompts and limits.")
    created_at = serializers.DateTimeField()

    def get_endpoint(self, judge) -> dict | None:
        return judge.endpoint_settings or None


class JudgeIn(serializers.Serializer):
    """A new judge: its labels in a ``file`` (multipart) or a scored ``run`` of the project (its id)."""

    name = serializers.CharField(max_length=NAME_MAX)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    file = serializers.FileField(required=False)
    format = serializers.ChoiceField(choices=JUDGE_FORMATS, default="auto")
    run = serializers.IntegerField(required=False, help_text="Register this run (its id) as the judge.")
    endpoint = serializers.JSONField(
        required=False,
        help_text="Run the judge against a chat completions endpoint: {url, model, prompts: {criterion: template}, "
        "system?, temperature?, max_tokens?, concurrency?, requests_per_minute?, max_retries?, timeout?}. The key "
        "is a server setting, never sent here.",
    )

    def validate(self, attrs):
        if sum(k in attrs for k in ("file", "run", "endpoint")) != 1:
            raise serializers.ValidationError("give one of a file, a run or an endpoint")
        return attrs
