from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotator.presets import PRESETS
from annotator.presets.document import scheme_read
from annotator.services.projects import membership_add, project_create
from scoring.errors import InputError


class Command(BaseCommand):
    help = (
        "Create a project from a preset or a scheme file (YAML or JSON, docs/schemes.md): its criteria, scales, "
        "default guidelines and K; --lead makes an account its first lead."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--preset", choices=sorted(PRESETS))
        source.add_argument("--scheme", metavar="FILE", help="A scheme file (manage.py export_scheme writes one).")
        parser.add_argument("--name")
        parser.add_argument("--annotators-per-dialogue", type=int, dest="k")
        parser.add_argument("--lead", metavar="USERNAME", help="An existing account, made the project's lead.")

    def handle(self, *args, slug, preset, scheme, name, k, lead, **options):
        from django.contrib.auth import get_user_model
        from django.db import transaction

        user = None
        if lead is not None:
            user = get_user_model().objects.filter(username=lead).first()
            if user is None:
                raise CommandError(f"no user {lead!r}")
        try:
            given = None if scheme is None else scheme_read(Path(scheme).read_bytes(), scheme)
            with transaction.atomic():
                project = project_create(slug=slug, preset=preset, scheme=given, name=name, annotators_per_dialogue=k)
                if user is not None:
                    membership_add(project=project, user=user, role="lead")
        except OSError as exc:
            raise CommandError(f"{scheme}: {exc.strerror}") from None
        except (InputError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        criteria = ", ".join(project.criteria.values_list("key", flat=True))
        led = f"; lead {lead}" if lead else ""
        self.stdout.write(
            f"created project {project.slug} ({(given or PRESETS.get(preset)).label}) with criteria {criteria}{led}"
        )
