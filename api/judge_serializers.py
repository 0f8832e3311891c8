"""The judges' endpoints: a judge as listed, and what creates one (an uploaded file, or a run)."""

from __future__ import annotations

from rest_framework import serializers

from annotator.models import JudgeKind, JudgeStatus
from annotator.services.judges import JUDGE_FORMATS, NAME_MAX


class JudgeOut(serializers.Serializer):
    """A judge of the project (``annotator.selectors.judges.judges_of``); never its endpoint's key."""

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
    created_at = serializers.DateTimeField()


class JudgeIn(serializers.Serializer):
    """A new judge: its labels in a ``file`` (multipart) or a scored ``run`` of the project (its id)."""

    name = serializers.CharField(max_length=NAME_MAX)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    file = serializers.FileField(required=False)
    format = serializers.ChoiceField(choices=JUDGE_FORMATS, default="auto")
    run = serializers.IntegerField(required=False, help_text="Register this run (its id) as the judge.")

    def validate(self, attrs):
        if ("file" in attrs) == ("run" in attrs):
            raise serializers.ValidationError("give either a file or a run")
        return attrs
