from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from scoring.app.selectors.project_archive import project_archive_chunks


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
        chunks = project_archive_chunks(project)
        if output == "-":
            if hasattr(self.stdout, "buffer"):
                for chunk in chunks:
                    self.stdout.buffer.write(chunk)
            else:
                self.stdout.write(b"".join(chunks).hex())
            return
        # written as it is produced, into a file beside the output that replaces it once complete
        target = Path(output)
        partial = target.with_name(target.name + ".partial")
        written = 0
        try:
            with open(partial, "wb") as out:
                for chunk in chunks:
                    out.write(chunk)
                    written += len(chunk)
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
        self.stderr.write(f"wrote {written} bytes to {output}")
