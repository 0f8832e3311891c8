from django.core.management.base import BaseCommand, CommandError

from annotator.management.output import chunks_write
from annotator.models import Project
from evaluation.archive.export import project_archive_chunks


class Command(BaseCommand):
    help = (
        "Write a project's full archive (every table of its state: criteria, wording, members, dialogues, "
        "assignments, every judgement and draft, quality control, studies, judges, webhooks without secrets, "
        "import history, runs with their files and scores) for backup or for import_project elsewhere."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--output", required=True, help="The archive (a zip) to write; - for standard output.")

    def handle(self, *args, slug, output, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        chunks = project_archive_chunks(project)
        chunks_write(self, chunks, output, as_text=bytes.hex)
