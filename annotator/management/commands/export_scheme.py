import json

from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from annotator.presets.document import scheme_yaml
from annotator.services.schemes import scheme_export


class Command(BaseCommand):
    help = (
        "Write a project's scheme as a scheme file (YAML, or JSON with --json): its criteria, scales, guidelines "
        "and every wording annotators see; create_project --scheme makes a project that asks the same."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--json", action="store_true", dest="as_json")
        parser.add_argument("--output", "-o", default="-", help="A file (default: standard output).")

    def handle(self, *args, slug, as_json, output, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        document = scheme_export(project=project)
        text = json.dumps(document, ensure_ascii=False, indent=2) + "\n" if as_json else scheme_yaml(document)
        if output == "-":
            self.stdout.write(text, ending="")
        else:
            with open(output, "w", encoding="utf-8") as out:
                out.write(text)
            self.stderr.write(f"wrote the scheme of {slug} to {output}")
