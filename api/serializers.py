"""Input and output serializers: shapes only, no logic and no queries of their own."""

from rest_framework import serializers

from annotator.exporters import AGGREGATIONS, EXPORT_FORMATS
from annotator.importers import FORMATS
from annotator.models import AssignmentStatus, Criterion, Dialogue, Post, Project
from scoring.app.models import Run


class CriterionOut(serializers.ModelSerializer):
    class Meta:
        model = Criterion
        fields = ["key", "label", "question", "unit", "values", "level", "speaker", "position"]


class ProjectOut(serializers.ModelSerializer):
    role = serializers.CharField(read_only=True)
    criteria = CriterionOut(many=True, read_only=True)

    class Meta:
        model = Project
        fields = ["slug", "name", "preset", "guidelines", "annotators_per_dialogue", "role", "criteria", "created_at"]


class PostOut(serializers.ModelSerializer):
    class Meta:
        model = Post
        fields = ["position", "speaker", "text", "utterance_block"]


class DialogueOut(serializers.ModelSerializer):
    n_posts = serializers.IntegerField(read_only=True)

    class Meta:
        model = Dialogue
        fields = ["id", "external_id", "language", "position", "n_posts"]


class DialogueDetailOut(DialogueOut):
    posts = PostOut(many=True, read_only=True)

    class Meta(DialogueOut.Meta):
        fields = DialogueOut.Meta.fields + ["posts"]


class ImportIn(serializers.Serializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=FORMATS, default="auto")
    language = serializers.CharField(required=False, allow_blank=True, max_length=20)


class ImportOut(serializers.Serializer):
    dialogues = serializers.IntegerField()
    posts = serializers.IntegerField()
    judgements = serializers.IntegerField()
    gold_counts = serializers.IntegerField()
    annotators_created = serializers.IntegerField()


class JudgementOut(serializers.Serializer):
    criterion = serializers.CharField()
    unit = serializers.IntegerField()
    value = serializers.CharField()


class AssignmentOut(serializers.Serializer):
    """Declared field by field (not a ModelSerializer): it answers every autosave, and building a
    ModelSerializer's fields from the model on each response costs more than the rest of the answer."""

    id = serializers.IntegerField(read_only=True)
    project = serializers.CharField(source="dialogue.project.slug", read_only=True)
    dialogue = serializers.CharField(source="dialogue.external_id", read_only=True)
    dialogue_id = serializers.IntegerField(read_only=True)
    status = serializers.ChoiceField(choices=AssignmentStatus.choices, read_only=True)
    shown_order = serializers.ListField(
        child=serializers.IntegerField(),
        read_only=True,
        allow_null=True,
        help_text="Ordering tasks: original positions in shown order.",
    )
    started_at = serializers.DateTimeField(read_only=True, allow_null=True)
    submitted_at = serializers.DateTimeField(read_only=True, allow_null=True)
    seconds_spent = serializers.IntegerField(read_only=True)


class AssignmentDetailOut(serializers.Serializer):
    """The plain data of ``annotator.selectors.assignments.own_assignment_detail``."""

    id = serializers.IntegerField()
    project = serializers.CharField()
    dialogue = serializers.CharField()
    dialogue_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=AssignmentStatus.choices)
    shown_order = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="Ordering tasks: original positions in shown order.",
    )
    started_at = serializers.DateTimeField(allow_null=True)
    submitted_at = serializers.DateTimeField(allow_null=True)
    seconds_spent = serializers.IntegerField()
    judgements = JudgementOut(many=True)
    reordering = serializers.ListField(child=serializers.IntegerField(), allow_null=True)


class JudgementIn(serializers.Serializer):
    criterion = serializers.CharField(max_length=40)
    unit = serializers.IntegerField(min_value=0)
    value = serializers.CharField(max_length=40)


class JudgementsIn(serializers.Serializer):
    judgements = JudgementIn(many=True)
    reordering = serializers.ListField(child=serializers.IntegerField(min_value=0), required=False, allow_null=True)
    submit = serializers.BooleanField(default=False)
    seconds = serializers.IntegerField(min_value=0, max_value=86400, default=0)


class RunOut(serializers.ModelSerializer):
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
            "scored_at",
        ]


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


class ExportQuery(serializers.Serializer):
    format = serializers.ChoiceField(choices=sorted(EXPORT_FORMATS))
    aggregation = serializers.ChoiceField(
        choices=AGGREGATIONS,
        default="votes",
        help_text="Distributions formats: vote shares, or the posteriors of Dawid-Skene, GLAD or MACE.",
    )


class DialogueFilters(serializers.Serializer):
    external_id = serializers.CharField(required=False, max_length=200)
    language = serializers.CharField(required=False, max_length=20)


class AssignmentFilters(serializers.Serializer):
    project = serializers.SlugField(required=False, max_length=80)
    status = serializers.ChoiceField(required=False, choices=["pending", "in_progress", "submitted"])
