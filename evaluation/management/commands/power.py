"""``manage.py power SLUG --target alpha_width --width 0.1``: annotators per item needed, from the labels so far;
``--target label_gold --delta 0.02 --k-max 30``: the labels per item label gold's stop rule expects at a delta."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from evaluation.services.power import TARGETS, PowerError, project_power


class Command(BaseCommand):
    help = (
        "Power analysis from the labels collected so far: how many annotators per item give Krippendorff's alpha "
        "an interval of --width, or separate two systems' mean scores with --power (by simulation from the pilot)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--criterion", help="criterion key (default: the first)")
        parser.add_argument("--target", choices=TARGETS, default="alpha_width")
        parser.add_argument("--width", type=float, default=0.1, help="alpha interval width to reach (alpha_width)")
        parser.add_argument("--power", type=float, default=0.8, help="share of collections that separate the systems")
        parser.add_argument("--effect", type=float, help="difference of mean scores to detect (default: the pilot's)")
        parser.add_argument("--system-field", default="system", help="dialogues' source field naming the system")
        parser.add_argument("--systems", nargs=2, metavar=("A", "B"), help="the two systems (default: the only two)")
        parser.add_argument("--k-max", type=int, default=20, help="K tried up to; label_gold: K_max, the most per item")
        parser.add_argument("--delta", type=float, default=0.02, help="label_gold: the stop rule's error rate")
        parser.add_argument("--simulations", type=int, default=200)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **o):
        project = Project.objects.filter(slug=o["slug"]).first()
        if project is None:
            raise CommandError(f"no project {o['slug']!r}")
        try:
            systems = tuple(o["systems"]) if o["systems"] else None
            result = project_power(
                project, criterion=o["criterion"], target=o["target"], width=o["width"], power=o["power"],
                effect=o["effect"], system_field=o["system_field"], systems=systems,
                k_max=o["k_max"], n_sim=o["simulations"], seed=o["seed"], delta=o["delta"],
            )  # fmt: skip
        except (PowerError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        if o["json"]:
            self.stdout.write(json.dumps(result))
            return
        self.stdout.write(
            f"{project.slug} {result['criterion']}: pilot of {result['pilot_labels']} labels on "
            f"{result['pilot_items']} items; target {result['target']}"
        )
        for row in result["rows"]:
            figures = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items())
            self.stdout.write(f"  {figures}")
        if result["target"] == "label_gold":
            asked = result["asked"]
            self.stdout.write(
                f"at delta {result['delta']}: {asked['labels_per_unit']:.1f} labels per unit, "
                f"{asked['labels_per_item']:.1f} annotators per item of {result['units_per_item']} units "
                f"(at most {result['max_k']}; {asked['saving']:.1%} fewer judgements), "
                f"simulated error rate {asked['error_rate']:.4f}"
            )
            return
        needed = result["k_needed"]
        self.stdout.write(f"annotators per item needed: {needed if needed is not None else 'more than --k-max'}")
