from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from annotator.services.imports.ratings import annotations_import
from scoring.errors import InputError


class Command(BaseCommand):
    # The system checks import every view and URL: a second of start-up that an import never needs
    # (``manage.py check`` and the test suite run them).
    requires_system_checks = []
    help = (
        "Import existing ratings into a project's dialogues: JSON lines in long form, "
        '{"item", "unit", "annotator", "criterion", "value"} (docs/schemes.md); all or nothing.'
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")

    def handle(self, *args, slug, file, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        try:
            report = annotations_import(project=project, path=file)
        except OSError as exc:
            raise CommandError(f"{file}: {exc.strerror}") from None
        except InputError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"imported {report.ratings} ratings of {report.items} items into {slug} "
            f"({report.annotators_created} new imported annotators)"
        )
