"""``manage.py judge_report SLUG JUDGE [--json] [--epsilon E]``: a judge's report against the humans."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotator.judges.selectors import judge_of
from annotator.models import Project
from evaluation.judges.services.report import judge_report
from evaluation.judges.services.wording import verdict_sentences


def _figure(f: dict | None) -> str:
    if not f or f.get("value") is None:
        return "-"
    low, high = f["ci"]
    return f"{f['value']:.3f} [{low:.3f}, {high:.3f}]" if low is not None else f"{f['value']:.3f}"


class Command(BaseCommand):
    help = "A judge's agreement with the humans, alternative annotator test, calibration, bias and PPI scores."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("judge")
        parser.add_argument("--json", action="store_true", help="The whole report as JSON.")
        parser.add_argument(
            "--epsilon",
            type=float,
            default=None,
            help="The alt-test's margin (default: from who annotated; experts 0.2, skilled 0.15, crowd 0.1).",
        )

    def handle(self, *args, slug, judge, epsilon, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        found = judge_of(project, judge)
        if found is None:
            raise CommandError(f"no judge {judge!r} in project {slug!r}")
        if epsilon is not None and not 0 <= epsilon <= 1:
            raise CommandError("--epsilon must be between 0 and 1")
        report = judge_report(project, found, epsilon=epsilon)
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False))
            return
        for line in verdict_sentences(report["alt_test"]):
            self.stdout.write(line)
        for key, a in report["agreement"].items():
            self.stdout.write(
                f"{key}: items {a['n_items']}, kappa {_figure(a['kappa'])}, "
                f"alpha humans {_figure(a['alpha_humans'])}, with judge {_figure(a['alpha_with_judge'])}"
            )
        for row in report["ppi"]["systems"]:
            ratio = "-" if row["width_ratio"] is None else f"{row['width_ratio']:.2f}"
            self.stdout.write(f"PPI {row['system']} {row['criterion']} {row['target']}: width ratio {ratio}")
