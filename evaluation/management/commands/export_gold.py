import shutil
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotator.exporters import AGGREGATIONS, EXPORT_FORMATS, export_gold_chunks
from annotator.exporters.parquet import ParquetUnavailable
from annotator.management.output import chunks_write
from annotator.models import Project
from annotator.selectors.population import annotators_included
from evaluation.services.dataset_export import dataset_write

PARQUET = "parquet"


class Command(BaseCommand):
    help = (
        "Export a project's gold data: per-annotator labels (stc3, dbdc zip), gold distributions (json, csv), "
        "or everything as a Parquet dataset folder with a dataset card (parquet)."
    )
    # The system checks import every view and URL: a second of start-up that a scoring command never needs
    # (``manage.py check`` and the test suite run them).
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--format", required=True, choices=sorted([*EXPORT_FORMATS, PARQUET]), dest="fmt")
        parser.add_argument(
            "--output",
            required=True,
            help="File to write; - for standard output. For parquet: the folder to write (created if missing).",
        )
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
        if fmt == PARQUET:
            return self._parquet(project, output, aggregation)
        try:
            chunks = export_gold_chunks(project=project, fmt=fmt, aggregation=aggregation)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self._included(project)
        chunks_write(self, chunks, output)

    def _included(self, project):
        included = annotators_included(project)
        self.stderr.write(
            f"annotators included ({included.source}): {', '.join(included.included) or 'none'}"
            + "".join(f"; excluded {e['annotator']}: {e['reason']}" for e in included.excluded)
        )

    def _parquet(self, project, output, aggregation):
        if output == "-":
            raise CommandError("a parquet export is a folder: give --output DIR")
        directory = Path(output)
        if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
            raise CommandError(f"{output} exists and is not an empty folder")
        # written beside the target and renamed once complete: a failed export leaves no half dataset
        partial = directory.with_name(directory.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        try:
            counts = dataset_write(project=project, directory=partial, aggregation=aggregation)
            if directory.exists():
                directory.rmdir()
            partial.rename(directory)
        except (ParquetUnavailable, ValueError) as exc:
            raise CommandError(str(exc)) from None
        finally:
            shutil.rmtree(partial, ignore_errors=True)
        self._included(project)
        rows = ", ".join(f"{name} {n}" for name, n in counts.items())
        self.stderr.write(f"wrote a Parquet dataset to {output} ({rows} rows) with its card README.md")
