from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from annotator.services.demo import DEMO_ANNOTATORS, DEMO_LEAD, demo_load


class Command(BaseCommand):
    help = "Load the demo: a project per preset with a few dialogues, a lead and three annotators (idempotent)."

    def handle(self, *args, **options):
        if not settings.DEMO_ALLOWED:
            raise CommandError(
                "the demo creates a staff account and annotators with the passwords published in the README; "
                "it does not run with these settings (DEMO_ALLOWED is off in config.settings.production)"
            )
        projects = demo_load()
        self.stdout.write(f"demo projects: {', '.join(p.slug for p in projects)}")
        self.stdout.write(
            f"lead: {DEMO_LEAD[0]} / {DEMO_LEAD[1]}; annotators: " + ", ".join(f"{u} / {p}" for u, p in DEMO_ANNOTATORS)
        )
