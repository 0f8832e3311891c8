"""``manage.py import_judge SLUG FILE --judge NAME``: a judge's labels, or a run registered as a judge."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotator.judges.services.endpoint import EndpointSettingsError, endpoint_judge_create, endpoint_judge_run
from annotator.judges.services.labels import JUDGE_FORMATS, judge_import
from annotator.models import Project
from evaluation.judges.services.from_runs import judge_from_run
from evaluation.models import Run
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
        parser.add_argument(
            "--endpoint",
            help="Run the judge now against a chat completions endpoint: a JSON file of its settings "
            "(url, model, prompts per criterion...; see docs/judges.md). The key is JUDGE_ENDPOINT_API_KEY.",
        )
        parser.add_argument("--description", default="")

    def handle(self, *args, slug, file, judge, fmt, run, endpoint, description, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        if sum(x is not None for x in (file, run, endpoint)) != 1:
            raise CommandError("give one of a FILE, --run RUN or --endpoint SETTINGS.json")
        try:
            if endpoint is not None:
                try:
                    given = json.loads(Path(endpoint).read_text(encoding="utf-8"))
                    created = endpoint_judge_create(
                        project=project, name=judge, endpoint=given, description=description, send=False
                    )
                except (OSError, ValueError, EndpointSettingsError) as exc:
                    raise CommandError(f"{endpoint}: {exc}") from None
                created = endpoint_judge_run(judge_id=created.pk)
                self.stdout.write(
                    f"asked {created.units_total} units: {created.prompt_tokens} prompt and "
                    f"{created.completion_tokens} completion tokens ({created.get_status_display()})"
                )
            elif run is not None:
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
