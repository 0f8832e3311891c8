from annotator.judges.selectors import judges_of
from annotator.management.lead import LeadCommand


class Command(LeadCommand):
    help = "Lead: the project's judges (import_judge adds one, remove_judge removes one, judge_report reads one)."

    def add_subcommands(self, sub):
        p = sub.add_parser("list", help="Judges: name, kind, units labelled, units without an answer.")
        p.add_argument("slug")

    def do_list(self, project, **options):
        for judge in judges_of(project):
            self.say(f"{judge.name}\t{judge.kind}\t{judge.n_labels}\t{judge.n_missing}")
