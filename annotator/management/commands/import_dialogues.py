import sys
import time

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from annotator.importers import FORMATS, InputError
from annotator.models import Project
from annotator.services.imports import ImportProgress, dialogues_import


class ProgressBars:
    """Two tqdm bars on a terminal (none when stderr is not one): dialogues checked, then written."""

    def __init__(self, stream=sys.stderr):
        self.stream = stream
        self.checking: tqdm | None = None
        self.writing: tqdm | None = None

    def __call__(self, progress: ImportProgress) -> None:
        if self.checking is None and self.writing is None:
            self.checking = tqdm(desc="checking", unit=" dialogues", file=self.stream, disable=None)
        if self.checking is not None:
            self.checking.update(progress.read - self.checking.n)
            if progress.total is None:
                return
            self.checking.close()
            self.checking = None
            self.writing = tqdm(desc="writing", total=progress.total, unit=" dialogues", file=self.stream, disable=None)
        self.writing.update(progress.written - self.writing.n)
        self.writing.set_postfix(rows=progress.rows, refresh=False)

    def close(self) -> None:
        for bar in (self.checking, self.writing):
            if bar is not None:
                bar.close()
        self.checking = self.writing = None


class Command(BaseCommand):
    # The system checks import every view and URL: a second of start-up that an import never needs
    # (``manage.py check`` and the test suite run them).
    requires_system_checks = []
    help = (
        "Import dialogues (and their annotations) into a project: STC-3/DialEval JSON, DBDC3 *.log.json "
        "(a file, a folder or a zip), the NLPCC xlsx, JSON lines or chat transcripts (OpenAI messages, ShareGPT). "
        "All or nothing; recorded as an import batch. "
        "Shows a progress bar on a terminal."
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
        bars = ProgressBars()
        try:
            report = dialogues_import(project=project, paths=paths, fmt=fmt, language=language, progress=bars)
        except InputError as exc:
            raise CommandError(f"import failed, nothing was imported: {exc}") from None
        finally:
            bars.close()
        self.stdout.write(
            f"imported {report.dialogues} dialogues, {report.posts} posts, {report.judgements} judgements, "
            f"{report.gold_counts} gold counts ({report.annotators_created} new imported annotators) "
            f"in {time.perf_counter() - started:.1f} s (import batch {report.batch_id})"
        )
