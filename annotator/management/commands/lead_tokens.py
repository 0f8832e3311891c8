from annotator.management.lead import LeadCommand
from annotator.services.accounts import member_tokens_revoke


class Command(LeadCommand):
    help = "Lead: revoke a member's API tokens (requests with them answer 401 from then on)."

    def add_subcommands(self, sub):
        p = sub.add_parser("revoke", help="Revoke every API token of a member (present or removed).")
        p.add_argument("slug")
        p.add_argument("username")

    def do_revoke(self, project, *, username, **options):
        revoked = member_tokens_revoke(project=project, user_id=self.user(username).pk)
        self.say(f"revoked {revoked} API token{'s' if revoked != 1 else ''} of {username}")
