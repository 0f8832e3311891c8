from django.core.management.base import BaseCommand, CommandError

from annotator.exporters import AGGREGATIONS, EXPORT_FORMATS, export_gold_chunks
from annotator.management.output import chunks_write
from annotator.models import Project
from annotator.selectors.population import annotators_included


class Command(BaseCommand):
    help = "Export a project's gold data: per-annotator labels (stc3, dbdc zip) or gold distributions (json, csv)."
    # The system checks import every view and URL: a second of start-up that a scoring command never needs
    # (``manage.py check`` and the test suite run them).
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--format", required=True, choices=sorted(EXPORT_FORMATS), dest="fmt")
        parser.add_argument("--output", required=True, help="File to write; - for standard output.")
        parser.add_argument(
            "--aggregation",
            choices=AGGREGATIONS,
            default="votes",
            help="Distributions formats: vote shares (default) or a model's posteriors (Dawid-Skene, GLAD, MACE).",
        )

    def handle(self, *args, slug, fmt, output, aggregation, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        try:
            chunks = export_gold_chunks(project=project, fmt=fmt, aggregation=aggregation)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        included = annotators_included(project)
        self.stderr.write(
            f"annotators included ({included.source}): {', '.join(included.included) or 'none'}"
            + "".join(f"; excluded {e['annotator']}: {e['reason']}" for e in included.excluded)
        )
        chunks_write(self, chunks, output)
