"""``manage.py import_judge SLUG FILE --judge NAME``: a judge's labels, or a run registered as a judge."""

from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from annotator.services.judges import JUDGE_FORMATS, judge_import
from scoring.app.models import Run
from scoring.app.services.run_judges import judge_from_run
from scoring.errors import InputError


class Command(BaseCommand):
    help = (
        "Import an automatic judge's labels into a project, in the preset's annotation format (one annotator: "
        "the judge) or as JSON lines of labels with optional distributions; or, with --run, register a scored "
        "run as a judge. The dialogues must already be in the project. All or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", nargs="?", help="The judge's file (omit with --run).")
        parser.add_argument("--judge", required=True, help="The judge's name (unique in the project).")
        parser.add_argument("--format", default="auto", choices=JUDGE_FORMATS, dest="fmt")
        parser.add_argument("--run", help="Register this run (by name) as the judge instead of reading a file.")
        parser.add_argument("--description", default="")

    def handle(self, *args, slug, file, judge, fmt, run, description, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        if (file is None) == (run is None):
            raise CommandError("give either a FILE or --run RUN")
        try:
            if run is not None:
                found = Run.objects.filter(project=project, name=run).first()
                if found is None:
                    raise CommandError(f"no run {run!r} in project {slug!r}")
                created = judge_from_run(run=found, name=judge, description=description)
            else:
                created = judge_import(
                    project=project, path=file, name=judge, fmt=fmt, description=description, display=file
                )
        except InputError as exc:
            raise CommandError(f"import failed, nothing was imported: {exc}") from None
        n = created.labels.count()
        self.stdout.write(f"judge {created.name}: {n} labels ({created.get_kind_display()})")
