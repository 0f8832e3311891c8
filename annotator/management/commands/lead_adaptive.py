from annotator.handout.models import StopRuleKind
from annotator.handout.services.adaptive import SETTINGS_FIELDS, adaptive_budget_update
from annotator.management.lead import LeadCommand
from annotator.models import AdaptiveBudget


class Command(LeadCommand):
    help = "Lead: the adaptive budget - a fixed K per item, or labels where the gold is unsettled (min/max K, budget)."

    def add_subcommands(self, sub):
        p = sub.add_parser("settings", help="Show the budget's settings; the options given change them.")
        p.add_argument("slug")
        p.add_argument("--mode", choices=["fixed", "adaptive"])
        p.add_argument("--min-k", type=int)
        p.add_argument("--max-k", type=int)
        p.add_argument("--budget", type=int, help="Item-assignments in total; 0: no total cap.")
        p.add_argument("--stop-rule", choices=StopRuleKind.values)
        p.add_argument("--threshold", type=float)

    def do_settings(self, project, *, mode, **options):
        given = {name: options[name] for name in SETTINGS_FIELDS if options.get(name) is not None}
        if mode is not None:
            given["adaptive"] = mode == "adaptive"
        row = adaptive_budget_update(project=project, **given) if given else None
        row = row or AdaptiveBudget.objects.filter(project=project).first() or AdaptiveBudget(project=project)
        self.say(f"mode\t{'adaptive' if row.adaptive else 'fixed'}")
        for name in SETTINGS_FIELDS[1:]:
            self.say(f"{name}\t{getattr(row, name)}")
