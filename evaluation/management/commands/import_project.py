from django.core.management.base import BaseCommand, CommandError

from evaluation.archive.restore import project_archive_import_path
from scoring.errors import InputError


class Command(BaseCommand):
    help = (
        "Create a project from an archive written by export_project, with everything in it, or nothing. "
        "Members are matched by username; missing accounts are created without a usable password (never under "
        "a reserved name)."
    )

    def add_arguments(self, parser):
        parser.add_argument("archive")
        parser.add_argument("--slug", help="Import under this slug instead of the archived one.")

    def handle(self, *args, archive, slug, **options):
        try:
            restored = project_archive_import_path(path=archive, slug=slug)
        except InputError as exc:
            raise CommandError(f"import failed, nothing was imported: {exc}") from None
        project = restored.project
        self.stdout.write(
            f"imported project {project.slug}: {project.dialogues.count()} dialogues, "
            f"{project.memberships.count()} members"
        )
        for note in restored.notes:
            self.stdout.write(f"note: {note}")
