from django.core.management.base import BaseCommand, CommandError

from annotator.presets import PRESETS
from annotator.services.projects import project_create


class Command(BaseCommand):
    help = "Create a project from a preset (its criteria, scales and default guidelines)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--preset", required=True, choices=sorted(PRESETS))
        parser.add_argument("--name")
        parser.add_argument("--annotators-per-dialogue", type=int, dest="k")

    def handle(self, *args, slug, preset, name, k, **options):
        try:
            project = project_create(slug=slug, preset=preset, name=name, annotators_per_dialogue=k)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"created project {project.slug} ({PRESETS[preset].label}) with criteria "
            f"{', '.join(project.criteria.values_list('key', flat=True))}"
        )
