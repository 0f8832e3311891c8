from django.core.management.base import BaseCommand

from annotator.services.demo import DEMO_ANNOTATORS, DEMO_LEAD, demo_load


class Command(BaseCommand):
    help = "Load the demo: a project per preset with a few dialogues, a lead and three annotators (idempotent)."

    def handle(self, *args, **options):
        projects = demo_load()
        self.stdout.write(f"demo projects: {', '.join(p.slug for p in projects)}")
        self.stdout.write(
            f"lead: {DEMO_LEAD[0]} / {DEMO_LEAD[1]}; annotators: " + ", ".join(f"{u} / {p}" for u, p in DEMO_ANNOTATORS)
        )
