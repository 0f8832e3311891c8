"""Input and output shapes of the quality-control endpoints (``api.views.quality``)."""

from rest_framework import serializers

from annotator.importers import FORMATS
from annotator.models import QUALITY_BOUNDS, QualityItemKind, SourceFilter

MAX_INT = 2**31 - 1


def _bounded(field: type[serializers.Field], name: str) -> serializers.Field:
    """A setting's field with the model's range (``QUALITY_BOUNDS``)."""
    low, high = QUALITY_BOUNDS[name]
    return field(min_value=low, max_value=high, required=False)


class QualitySettingsIO(serializers.Serializer):
    control_rate = _bounded(serializers.FloatField, "control_rate")
    default_tolerance = _bounded(serializers.IntegerField, "default_tolerance")
    pass_mark = _bounded(serializers.FloatField, "pass_mark")
    too_fast_seconds = _bounded(serializers.IntegerField, "too_fast_seconds")
    control_accuracy_flag = _bounded(serializers.FloatField, "control_accuracy_flag")
    source = serializers.ChoiceField(choices=SourceFilter.choices, required=False)


class ExpectedIO(serializers.Serializer):
    criterion = serializers.CharField(max_length=40)
    unit = serializers.IntegerField(min_value=0, max_value=MAX_INT)
    value = serializers.CharField(max_length=40)
    tolerance = serializers.IntegerField(min_value=0, max_value=10, default=0)


class QualityItemIn(serializers.Serializer):
    dialogue = serializers.CharField(max_length=200, help_text="The dialogue's external id.")
    kind = serializers.ChoiceField(choices=QualityItemKind.choices)
    explanation = serializers.CharField(allow_blank=True, default="", max_length=10000)
    answers = ExpectedIO(many=True)


class QualityItemOut(serializers.Serializer):
    dialogue = serializers.CharField()
    kind = serializers.CharField()
    explanation = serializers.CharField()
    answers = ExpectedIO(many=True)
    assigned = serializers.IntegerField(help_text="Assignments of the item in annotators' queues.")


class QualityUploadIn(serializers.Serializer):
    file = serializers.FileField()
    kind = serializers.ChoiceField(choices=QualityItemKind.choices)
    format = serializers.ChoiceField(choices=FORMATS, default="auto")
    tolerance = serializers.IntegerField(min_value=0, max_value=10, required=False)
    explanation = serializers.CharField(allow_blank=True, default="", max_length=10000)


class MixIn(serializers.Serializer):
    seed = serializers.IntegerField(min_value=0, max_value=MAX_INT, default=0)


class MixOut(serializers.Serializer):
    controls_added = serializers.IntegerField()
    controls_withdrawn = serializers.IntegerField()
    training_added = serializers.IntegerField()


class QualificationOut(serializers.Serializer):
    annotator = serializers.CharField()
    state = serializers.ChoiceField(choices=["not_required", "training", "failed", "passed", "admitted"])
    score = serializers.FloatField(allow_null=True)
    submitted = serializers.IntegerField()
    total = serializers.IntegerField()
    pass_mark = serializers.FloatField()
    admitted_by = serializers.CharField()
    note = serializers.CharField()


class AdmitIn(serializers.Serializer):
    annotator = serializers.CharField(max_length=150)
    note = serializers.CharField(allow_blank=True, default="", max_length=10000)


class ExclusionIO(serializers.Serializer):
    annotator = serializers.CharField(max_length=150, help_text="Username, or an imported annotator's source id.")
    reason = serializers.CharField(max_length=10000)


class PopulationOut(serializers.Serializer):
    source = serializers.CharField()
    included = serializers.ListField(child=serializers.CharField())
    excluded = ExclusionIO(many=True)


class AdjudicationIO(serializers.Serializer):
    dialogue = serializers.CharField(max_length=200, help_text="The dialogue's external id.")
    criterion = serializers.CharField(max_length=40)
    unit = serializers.IntegerField(min_value=0, max_value=MAX_INT)
    value = serializers.CharField(max_length=40)
    note = serializers.CharField(allow_blank=True, default="", max_length=10000)
    adjudicator = serializers.CharField(read_only=True)


class FeedbackRow(serializers.Serializer):
    criterion = serializers.CharField()
    label = serializers.CharField()
    unit = serializers.IntegerField()
    expected = serializers.CharField()
    expected_label = serializers.CharField()
    given = serializers.CharField(allow_null=True)
    given_label = serializers.CharField()
    tolerance = serializers.IntegerField()
    correct = serializers.BooleanField()


class FeedbackOut(serializers.Serializer):
    submitted = serializers.BooleanField()
    explanation = serializers.CharField()
    answers = FeedbackRow(many=True)
    state = serializers.CharField()
    score = serializers.FloatField(allow_null=True)
