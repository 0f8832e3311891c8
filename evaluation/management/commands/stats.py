import json

from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from evaluation.models import ProjectStatistics
from evaluation.services.freshness import freshness_json, project_freshness
from evaluation.services.incremental import live_state_peek, statistics_with_running_figures
from evaluation.services.live_freshness import live_freshness
from evaluation.services.statistics import project_statistics
from evaluation.tasks import recompute_statistics


class Command(BaseCommand):
    help = "Agreement per criterion (Fleiss, Randolph, Krippendorff, shares agreeing), by speaker and label merge."
    # The system checks import every view and URL: a second of start-up that a scoring command never needs
    # (``manage.py check`` and the test suite run them).
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print the full payload as JSON.")
        parser.add_argument(
            "--async",
            action="store_true",
            dest="use_workers",
            help="Compute on the Celery workers (stored for the dashboard) and wait for them.",
        )
        parser.add_argument("--timeout", type=float, default=300, help="Seconds to wait for the workers.")

    def handle(self, *args, slug, as_json: bool, use_workers: bool, timeout: float, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        if use_workers:
            try:
                recompute_statistics.apply_async(args=(project.pk,), retry=False).get(timeout=timeout)
            except Exception as exc:  # the broker or the workers are not there
                raise CommandError(f"the workers did not answer: {exc}") from None
            stored = ProjectStatistics.objects.get(project=project).payload
            # the running figures from the live state, read without asking for a rebuild (as the API answers them)
            payload, _said = statistics_with_running_figures(project, stored, state=live_state_peek(project))
        else:
            payload = project_statistics(project)
        if as_json:
            # the dashboard's live figures, read without asking for a rebuild (this process would not see it through)
            payload = {
                **payload,
                "live": live_freshness(project, ask_for_rebuild=False),
                "freshness": freshness_json(project_freshness(project=project)),
            }
            self.stdout.write(json.dumps(payload, indent=1, ensure_ascii=False))
            return
        self.stdout.write(
            f"{'criterion':<14}{'units':>7}{'annot.':>7}{'fleiss':>9}{'randolph':>10}{'alpha':>9}"
            f"{'2+ agree':>10}{'all agree':>10}"
        )
        for key, c in payload["criteria"].items():
            rows = (
                [(key, c)]
                + [(f"  {s}", v) for s, v in c.get("by_speaker", {}).items()]
                + [(f"  {m}", v) for m, v in c.get("merges", {}).items()]
            )
            for label, v in rows:
                self.stdout.write(
                    f"{label:<14}{v['n_units']:>7}{v['n_annotators']:>7}{_f(v['fleiss_kappa'])}"
                    f"{_f(v['randolph_kappa'], 10)}{_f(v['krippendorff_alpha']['nominal'])}"
                    f"{_f(v['agree_2plus'], 10)}{_f(v['agree_all'], 10)}"
                )


def _f(value, width: int = 9) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.4f}"
