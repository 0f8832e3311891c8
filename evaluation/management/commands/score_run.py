import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from evaluation.runs.services.scoring import run_scheme, run_score
from scoring.cli import text_lines
from scoring.errors import InputError


class Command(BaseCommand):
    help = "Score a run (STC-3/DialEval submission JSON, or DBDC *.labels.json files/folder/zip) against the gold."
    # The system checks import every view and URL: a second of start-up that a scoring command never needs
    # (``manage.py check`` and the test suite run them).
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("path", nargs="?", help="The run; leave out for a coherence project's reorderings.")
        parser.add_argument("--name", help="Run name (default: the file name); scoring a name again replaces it.")
        parser.add_argument("--alpha", type=float, default=0.5, help="Weight of customer turns in nugget scores.")
        parser.add_argument("--strict", action="store_true", help="Every gold dialogue must be in the run.")
        parser.add_argument(
            "--threshold",
            type=float,
            default=None,
            metavar="T",
            help="Breakdown projects only; the DBDC3 evaluation script's -t: a turn's gold label is its most "
            "frequent label (NB, PB or B; the merged labels for the lenient metrics) if that label's share of "
            "the annotators is at least T, otherwise NB (default 0: the plain majority).",
        )
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args, slug, path, name, alpha, strict, threshold, as_json: bool, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        scheme = run_scheme(project)
        if threshold is not None and (scheme is None or "threshold" not in scheme.options):
            raise CommandError(f"--threshold applies to breakdown projects only; {slug} is a {project.preset} project")
        if threshold is not None and not 0 <= threshold <= 1:
            raise CommandError(f"--threshold must be in [0, 1], got {threshold}")
        try:
            run = run_score(
                project=project,
                path=Path(path) if path else None,
                name=name,
                alpha=alpha,
                strict=strict,
                threshold=threshold or 0.0,
            )
        except (InputError, ValueError) as exc:
            raise CommandError(f"run rejected: {exc}") from None
        if as_json:
            self.stdout.write(json.dumps(run.scores, indent=1))
            return
        title = f"run {run.name} ({run.get_kind_display()}), {run.scores.get('n_dialogues')} dialogues"
        for line in text_lines(run.scores, title):
            self.stdout.write(line)
