from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from evaluation.services.report.content import REPORT_LANGUAGES, project_report
from evaluation.services.report.render import FORMATS, report_render
from evaluation.services.statistics import statistics_recompute


class Command(BaseCommand):
    help = (
        "The study report of a project: a HEDS-style datasheet and a methods paragraph with every agreement "
        "figure and its interval, from the stored statistics (their fingerprint and time stated)."
    )
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--format", choices=list(FORMATS), default="md", dest="fmt")
        parser.add_argument("--output", "-o", help="Write to this file instead of standard output.")
        parser.add_argument("--language", choices=REPORT_LANGUAGES, default="en", help="The report's language.")
        parser.add_argument(
            "--recompute",
            action="store_true",
            help="Recompute the statistics first if the judgements changed (else the report says they are stale).",
        )

    def handle(self, *args, slug: str, fmt: str, output: str | None, language: str, recompute: bool, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        if recompute:
            statistics_recompute(project_id=project.pk)
        report = project_report(project=project, language=language)
        text = report_render(report, fmt)
        if output:
            Path(output).write_text(text, encoding="utf-8")
            self.stderr.write(f"wrote {output} (statistics: {report.statistics.status})")
        else:
            self.stdout.write(text, ending="")
        if report.statistics.status != "current":
            self.stderr.write(f"warning: the statistics are {report.statistics.status}; the report says so")
