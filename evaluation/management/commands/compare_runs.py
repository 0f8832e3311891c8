import json

from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from evaluation.runs.services.compare import runs_compare


class Command(BaseCommand):
    help = (
        "Ranking stability, discriminative power (randomised Tukey HSD and paired bootstrap) and the pairwise "
        "p-values of a project's scored runs on one per-dialogue metric."
    )
    # The system checks import every view and URL: a second of start-up that a scoring command never needs
    # (``manage.py check`` and the test suite run them).
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--metric", required=True, help='A per-dialogue metric, e.g. "A.rsnod" or "MSE(NB,PB,B)".')
        parser.add_argument("--trials", type=int, default=10_000, help="B, the trials of each test.")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args, slug, metric, trials, seed, as_json, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        try:
            result = runs_compare(project=project, metric=metric, trials=trials, seed=seed)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if as_json:
            self.stdout.write(json.dumps(result, indent=1))
            return
        stability = result["ranking_stability"]
        self.stdout.write(f"{metric} over {result['n_items']} dialogues, {len(result['runs'])} runs")
        for name, mean in result["means"].items():
            self.stdout.write(f"  {name:<30} {mean:.4f}")
        if stability:
            self.stdout.write(
                f"ranking stability (mean tau, {stability['trials']} trials of two "
                f"{stability['share']:.0%} samples): {stability['mean_tau']:.4f}"
            )
        for test in ("tukey_hsd", "paired_bootstrap"):
            self.stdout.write(f"discriminative power ({test}, B={trials}): {result[test]['discriminative_power']:.4f}")
        names = result["runs"]
        self.stdout.write("randomised Tukey HSD p-values:")
        self.stdout.write(" " * 22 + "".join(f"{n[:10]:>11}" for n in names))
        for name, row in zip(names, result["tukey_hsd"]["p_values"]):
            self.stdout.write(f"  {name[:20]:<20}" + "".join(f"{p:>11.4f}" for p in row))
