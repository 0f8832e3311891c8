from annotator.management.lead import LeadCommand
from annotator.pairwise.models import TieModel
from annotator.pairwise.selectors import pairwise_settings
from annotator.pairwise.services.settings import comparison_check, comparison_criterion_add, pairwise_settings_save


class Command(LeadCommand):
    help = "Lead: a comparison project's settings (names revealed, active pairs, vote budget, ties) and criteria."

    def add_subcommands(self, sub):
        p = sub.add_parser("settings", help="Show the settings; the options given change them.")
        p.add_argument("slug")
        p.add_argument("--reveal-systems", choices=["yes", "no"])
        p.add_argument("--active-pairs", choices=["yes", "no"])
        p.add_argument("--vote-budget", help="Votes in total before the collection stops; 'none' for no budget.")
        p.add_argument("--ties", choices=TieModel.values)
        p = sub.add_parser("add-criterion", help="A criterion of the comparison (the four outcomes).")
        p.add_argument("slug")
        p.add_argument("key")
        p.add_argument("--label", default="")
        p.add_argument("--question", default="")

    def do_settings(self, project, *, reveal_systems, active_pairs, vote_budget, ties, **options):
        comparison_check(project)
        now = pairwise_settings(project)
        if any(x is not None for x in (reveal_systems, active_pairs, vote_budget, ties)):
            budget = now.vote_budget
            if vote_budget is not None:
                budget = None if vote_budget.lower() == "none" else int(vote_budget)
            now = pairwise_settings_save(
                project=project,
                reveal_systems=now.reveal_systems if reveal_systems is None else reveal_systems == "yes",
                active_pairs=now.active_pairs if active_pairs is None else active_pairs == "yes",
                vote_budget=budget,
                ties=ties or now.ties,
            )
        self.say(f"reveal_systems\t{'yes' if now.reveal_systems else 'no'}")
        self.say(f"active_pairs\t{'yes' if now.active_pairs else 'no'}")
        self.say(f"vote_budget\t{now.vote_budget if now.vote_budget is not None else 'none'}")
        self.say(f"ties\t{now.ties}")

    def do_add_criterion(self, project, *, key, label, question, **options):
        criterion = comparison_criterion_add(project=project, key=key, label=label, question=question)
        self.say(f"added criterion {criterion.key} to {project.slug}")
