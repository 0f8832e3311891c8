from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from annotator.presets.document import scheme_read
from annotator.services.schemes import scheme_change
from scoring.errors import InputError


class Command(BaseCommand):
    help = (
        "Replace a project's scheme with a scheme file (export_scheme, edit, change_scheme). Once answers exist, "
        "a change that would reinterpret them is refused, naming the criterion and the field."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")

    def handle(self, *args, slug, file, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        try:
            changed = scheme_change(project=project, scheme=scheme_read(Path(file).read_bytes(), file))
        except OSError as exc:
            raise CommandError(f"{file}: {exc.strerror}") from None
        except (InputError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{slug} follows the scheme of {file} (version {changed.scheme_version})")
