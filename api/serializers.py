"""Input and output serializers: shapes only, no logic and no queries of their own."""

from rest_framework import serializers

from annotator.exporters import AGGREGATIONS, EXPORT_FORMATS
from annotator.importers import FORMATS
from annotator.models import AssignmentStatus, Criterion, Dialogue, ImportStatus, Post, Project


class TokenIn(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False, style={"input_type": "password"})


class TokenOut(serializers.Serializer):
    token = serializers.CharField()


class CriterionOut(serializers.ModelSerializer):
    class Meta:
        model = Criterion
        fields = ["key", "label", "question", "unit", "values", "level", "speaker", "position"]


class ProjectOut(serializers.ModelSerializer):
    role = serializers.CharField(read_only=True)
    criteria = CriterionOut(many=True, read_only=True)

    class Meta:
        model = Project
        fields = [
            "slug",
            "name",
            "preset",
            "guidelines",
            "annotators_per_dialogue",
            "annotators_are",
            "role",
            "criteria",
            "created_at",
        ]


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


class ImportJobOut(serializers.Serializer):
    """An import (``annotator.selectors.imports.import_batch_status``): its progress, then its result or error."""

    id = serializers.IntegerField()
    url = serializers.CharField(help_text="Where to poll this import.")
    status = serializers.ChoiceField(choices=ImportStatus.choices)
    status_label = serializers.CharField()
    finished = serializers.BooleanField()
    message = serializers.CharField(help_text="Where the import is, or its result or error, in a sentence.")
    file_names = serializers.CharField()
    requested_format = serializers.CharField()
    format = serializers.CharField(help_text="The format read (detected or chosen).")
    created_by = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    dialogues_read = serializers.IntegerField()
    dialogues_total = serializers.IntegerField(allow_null=True)
    dialogues_written = serializers.IntegerField()
    rows_written = serializers.IntegerField()
    progress = serializers.FloatField(allow_null=True, help_text="Share done, 0 to 1; null while unknown.")
    dialogues = serializers.IntegerField()
    posts = serializers.IntegerField()
    judgements = serializers.IntegerField()
    gold_counts = serializers.IntegerField()
    annotators_created = serializers.IntegerField()
    error = serializers.CharField(allow_blank=True)
    file = serializers.CharField(allow_null=True)
    record = serializers.CharField(allow_null=True)
    field = serializers.CharField(allow_null=True)


class ImportRemovalOut(serializers.Serializer):
    batch = serializers.IntegerField()
    dialogues = serializers.IntegerField()
    assignments = serializers.IntegerField()
    submitted_judgements = serializers.IntegerField()
    native_submitted_judgements = serializers.IntegerField()
    draft_judgements = serializers.IntegerField()


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
    started_at = serializers.DateTimeField(read_only=True, allow_null=True)
    submitted_at = serializers.DateTimeField(read_only=True, allow_null=True)
    seconds_spent = serializers.IntegerField(read_only=True)
    version = serializers.IntegerField(
        read_only=True, help_text="Counts the saves of this item; send it back with your next save."
    )


class RevisionOut(serializers.Serializer):
    criterion = serializers.CharField()
    unit = serializers.IntegerField()
    revision = serializers.IntegerField(help_text="The item's version that last wrote (or removed) this judgement.")


class AssignmentDetailOut(serializers.Serializer):
    """The plain data of ``annotator.selectors.assignments.own_assignment_detail``."""

    id = serializers.IntegerField()
    project = serializers.CharField()
    dialogue = serializers.CharField()
    dialogue_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=AssignmentStatus.choices)
    started_at = serializers.DateTimeField(allow_null=True)
    submitted_at = serializers.DateTimeField(allow_null=True)
    seconds_spent = serializers.IntegerField()
    version = serializers.IntegerField(help_text="Counts the saves of this item; send it back with your next save.")
    judgements = JudgementOut(many=True, help_text="Units numbered as shown to you (see the dialogue's posts).")
    reordering = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="Shown turn numbers in your order."
    )
    revisions = RevisionOut(many=True, help_text="Removed judgements too: a removal is a change.")
    reordering_revision = serializers.IntegerField()


class JudgementIn(serializers.Serializer):
    criterion = serializers.CharField(max_length=40)
    unit = serializers.IntegerField(min_value=0)
    value = serializers.CharField(max_length=40, allow_blank=True, help_text='"" removes this judgement.')
    base = serializers.CharField(
        max_length=40,
        allow_blank=True,
        allow_null=True,
        required=False,
        help_text='The value you last saw for this judgement (null or "" for none). When sent, the save never '
        "writes over a stored value that is neither this nor ``value`` (409).",
    )


class JudgementsIn(serializers.Serializer):
    """Judgements are merged one by one into what is stored (the ones you do not send stay). A judgement
    is written over a stored value only when you saw it: send the ``version`` you last read and each
    judgement's ``base``. One written or removed after that version (its revision is newer), or whose
    stored value is not your ``base``, was changed elsewhere: the save answers 409 listing every such
    judgement, and saves nothing (unless its stored value already is your new one)."""

    judgements = JudgementIn(many=True)
    reordering = serializers.ListField(child=serializers.IntegerField(min_value=0), required=False, allow_null=True)
    reordering_base = serializers.ListField(
        child=serializers.IntegerField(min_value=0),
        required=False,
        allow_null=True,
        help_text="The order you last saw (null for none): checked like a judgement's ``base``.",
    )
    version = serializers.IntegerField(
        min_value=0,
        required=False,
        allow_null=True,
        help_text="The item's version you last read: judgements written since are not overwritten unseen (409).",
    )
    submit = serializers.BooleanField(default=False)
    seconds = serializers.IntegerField(min_value=0, max_value=86400, default=0)


class SavedOut(AssignmentOut):
    """The saved assignment; when it had been saved elsewhere since your ``version`` (``stale``), also
    its stored judgements and reordering, so that a client shows the other answers too. (The schema of
    the answer: the view adds the last three fields to ``AssignmentOut``'s.)"""

    stale = serializers.BooleanField(read_only=True)
    # not read_only: the schema would list read-only fields as always present
    judgements = JudgementOut(many=True, required=False, help_text="Only when ``stale``.")
    reordering = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        allow_null=True,
        help_text="Only when ``stale``.",
    )


class ConflictOut(serializers.Serializer):
    criterion = serializers.CharField(help_text='"" for the reordering')
    unit = serializers.IntegerField()
    stored = serializers.CharField(help_text="the value saved elsewhere since you saw this judgement")
    seen = serializers.CharField(help_text='the value you last saw (your ``base``; "" for none)')
    given = serializers.CharField()


class ConflictsOut(serializers.Serializer):
    """409: judgements you sent would replace values saved elsewhere that you have not seen; nothing was
    saved. ``judgements`` and ``reordering`` are everything stored now (compare them with all you last
    saw: other judgements may have changed too), ``version`` the version to send once you chose."""

    detail = serializers.CharField()
    reason = serializers.CharField(help_text='"conflict"')
    problems = serializers.ListField(child=serializers.CharField())
    conflicts = ConflictOut(many=True)
    version = serializers.IntegerField(help_text="the item's current version")
    judgements = JudgementOut(many=True)
    reordering = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    revisions = RevisionOut(many=True)
    reordering_revision = serializers.IntegerField()


class SaveRefusedOut(serializers.Serializer):
    """A save refused: ``reason`` says why in a word the page acts on (``invalid``, ``submitted``,
    ``removed``, ``not_qualified``, ``gone``, ``signed_out``; 410: ``time_over`` or ``released``, a study
    participant's item past their time limit and its grace, or given to another participant - also in
    ``code``), ``detail`` in the person's language."""

    detail = serializers.CharField()
    reason = serializers.CharField()
    code = serializers.CharField(required=False, help_text="410 only: time_over or released")
    problems = serializers.ListField(child=serializers.CharField(), required=False)
    missing = serializers.ListField(child=serializers.CharField(), required=False)


class ArchiveIn(serializers.Serializer):
    file = serializers.FileField()
    slug = serializers.SlugField(required=False, allow_blank=True, max_length=80)


class ArchiveOut(serializers.Serializer):
    slug = serializers.SlugField()
    notes = serializers.ListField(
        child=serializers.CharField(), help_text="What the restore did not restore as archived, and why."
    )


class ExportQuery(serializers.Serializer):
    format = serializers.ChoiceField(
        choices=sorted([*EXPORT_FORMATS, "parquet"]),
        help_text="parquet: a zip of the Parquet dataset folder (every table and its dataset card README.md).",
    )
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
