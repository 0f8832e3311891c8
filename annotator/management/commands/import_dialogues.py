import time

from django.core.management.base import BaseCommand, CommandError

from annotator.importers import FORMATS, InputError
from annotator.models import Project
from annotator.services.imports import dialogues_import


class Command(BaseCommand):
    help = (
        "Import dialogues (and their annotations) into a project: STC-3/DialEval JSON, DBDC3 *.log.json "
        "(a file, a folder or a zip), the NLPCC xlsx, or JSON lines. All or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("paths", nargs="+")
        parser.add_argument("--format", default="auto", choices=FORMATS, dest="fmt")
        parser.add_argument("--language", help="Language code for the dialogues (default: guessed from the path).")

    def handle(self, *args, slug, paths, fmt, language, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        started = time.perf_counter()
        try:
            report = dialogues_import(project=project, paths=paths, fmt=fmt, language=language)
        except InputError as exc:
            raise CommandError(f"import failed, nothing was imported: {exc}") from None
        self.stdout.write(
            f"imported {report.dialogues} dialogues, {report.posts} posts, {report.judgements} judgements, "
            f"{report.gold_counts} gold counts ({report.annotators_created} new imported annotators) "
            f"in {time.perf_counter() - started:.1f} s"
        )
