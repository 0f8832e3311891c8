from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from scoring.app.selectors.project_archive import project_archive


class Command(BaseCommand):
    help = (
        "Write a project's full archive (criteria, guidelines, members, dialogues, assignments, every judgement "
        "and draft, reorderings, gold counts, runs with scores) for backup or for import_project elsewhere."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--output", required=True, help="The archive (a zip) to write; - for standard output.")

    def handle(self, *args, slug, output, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        payload = project_archive(project)
        if output == "-":
            self.stdout.buffer.write(payload) if hasattr(self.stdout, "buffer") else self.stdout.write(payload.hex())
        else:
            Path(output).write_bytes(payload)
            self.stderr.write(f"wrote {len(payload)} bytes to {output}")
