"""The delivery log keeps an answer's status line, never its body: the bodies kept so far are dropped (an answer
that came back kept its status code; an error's text was no answer and stays)."""

from django.db import migrations, models


def drop_answer_bodies(apps, schema_editor):
    WebhookDelivery = apps.get_model("annotator", "WebhookDelivery")
    WebhookDelivery.objects.filter(status_code__isnull=False).update(response_excerpt="")


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0022_adaptive_label_gold"),
    ]

    operations = [
        migrations.AlterField(
            model_name="webhookdelivery",
            name="response_excerpt",
            field=models.TextField(
                blank=True, help_text="The last answer's status line (never its body), or the error."
            ),
        ),
        migrations.RunPython(drop_answer_bodies, migrations.RunPython.noop),
    ]
