from django.db import migrations, models

import annotator.studies.models


def give_each_participant_a_code(apps, schema_editor):
    """Existing participants get a return code each (AddField's default would give them all one)."""
    Participant = apps.get_model("annotator", "Participant")
    for participant in Participant.objects.only("pk").iterator():
        Participant.objects.filter(pk=participant.pk).update(return_code=annotator.studies.models.return_code_new())


class Migration(migrations.Migration):

    dependencies = [
        ("annotator", "0012_assignment_submitted_at_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="participant",
            name="return_code",
            field=models.CharField(
                default=annotator.studies.models.return_code_new,
                help_text="Shown to the participant: with it, their id opens the study in another browser.",
                max_length=16,
            ),
        ),
        migrations.RunPython(give_each_participant_a_code, migrations.RunPython.noop),
        migrations.AddField(
            model_name="releaseditem",
            name="assignment_number",
            field=models.PositiveBigIntegerField(
                blank=True,
                help_text="The released assignment's id: a late save to it is told why it is gone.",
                null=True,
            ),
        ),
    ]
