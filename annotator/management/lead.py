"""What the lead's commands share (``manage.py lead_*``, docs/cli.md): subcommands, the project by slug, users by
username, and the services' refusals as ``CommandError`` (exit status 1 with the service's message).

Each command is a thin wrapper: it parses, finds the project and calls the same service function as the page.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project


class LeadCommand(BaseCommand):
    """A command with subcommands: ``add_subcommands(subparsers)`` declares them, ``do_<name>(project, **options)``
    runs one (dashes become underscores)."""

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        self.add_subcommands(sub)

    def add_subcommands(self, sub) -> None:
        raise NotImplementedError

    def handle(self, *args, action: str, slug: str, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        try:
            getattr(self, f"do_{action.replace('-', '_')}")(project, **options)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        except (ValueError, LookupError) as exc:
            raise CommandError(str(exc)) from None
        except ObjectDoesNotExist as exc:  # an id or name the project does not have
            raise CommandError(f"not found in {slug}: {exc}") from None

    @staticmethod
    def user(username: str):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}")
        return user

    def say(self, text: str) -> None:
        self.stdout.write(text)
