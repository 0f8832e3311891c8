from annotator.management.lead import LeadCommand
from annotator.models import Assignment
from annotator.services.judgements import assignment_reopen


class Command(LeadCommand):
    help = "Lead: an annotator's items - reopen a submitted item so that they can change it."

    def add_subcommands(self, sub):
        p = sub.add_parser("reopen", help="Reopen DIALOGUE for USERNAME (their answers stay as drafts).")
        p.add_argument("slug")
        p.add_argument("dialogue", help="The dialogue's id in the project.")
        p.add_argument("username")
        p.add_argument("--reason", default="", help="Shown to the annotator on the item.")

    def do_reopen(self, project, *, dialogue, username, reason, **options):
        assignment = Assignment.objects.get(
            dialogue__project=project, dialogue__external_id=dialogue, annotator=self.user(username)
        )
        assignment_reopen(assignment_id=assignment.pk, reason=reason.strip()[:500])
        self.say(f"reopened {dialogue} for {username}")
