from django.conf import settings

from annotator.management.lead import LeadCommand
from annotator.models import Role
from annotator.services.accounts import membership_add_account
from annotator.services.invitations import invitation_send
from annotator.services.projects import membership_add, membership_remove


class Command(LeadCommand):
    help = "Lead: a project's members - list, add (existing or new account), role, remove, invite by email."

    def add_subcommands(self, sub):
        p = sub.add_parser("list", help="Members with their roles (removed ones marked).")
        p.add_argument("slug")
        p = sub.add_parser("add", help="Add an existing account, or a new one with --password.")
        p.add_argument("slug")
        p.add_argument("username")
        p.add_argument("--role", choices=Role.values, default=Role.ANNOTATOR)
        p.add_argument("--password", default="")
        p = sub.add_parser("role", help="Change a member's role.")
        p.add_argument("slug")
        p.add_argument("username")
        p.add_argument("role", choices=Role.values)
        p = sub.add_parser("remove", help="Remove a member (their submitted work stays).")
        p.add_argument("slug")
        p.add_argument("username")
        p = sub.add_parser("invite", help="Invite an email address (links start with --site-url, default SITE_URL).")
        p.add_argument("slug")
        p.add_argument("email")
        p.add_argument("--role", choices=Role.values, default=Role.ANNOTATOR)
        p.add_argument("--site-url", default=None)

    def do_list(self, project, **options):
        for m in project.memberships.select_related("user").order_by("role", "user__username"):
            removed = "" if m.active else "\t(removed)"
            self.say(f"{m.user.username}\t{m.role}{removed}")

    def do_add(self, project, *, username, role, password, **options):
        membership_add_account(project=project, actor=None, username=username, password=password, role=role)
        self.say(f"{username} is now {role} of {project.slug}")

    def do_role(self, project, *, username, role, **options):
        user = self.user(username)
        if not project.memberships.filter(user=user).exists():
            raise ValueError(f"{username} is not a member of {project.slug}")
        membership_add(project=project, user=user, role=role)
        self.say(f"{username} is now {role} of {project.slug}")

    def do_remove(self, project, *, username, **options):
        removed = membership_remove(project=project, user_id=self.user(username).pk)
        self.say(f"removed {username} from {project.slug}" if removed else f"{username} is not a member")

    def do_invite(self, project, *, email, role, site_url, **options):
        invitation_send(project=project, actor=None, email=email, role=role, base_url=site_url or settings.SITE_URL)
        self.say(f"sent an invitation to {email} as {role}")  # an account with the address joins when its owner accepts
