"""``manage.py remove_judge SLUG NAME``: remove a judge and its labels."""

from django.core.management.base import BaseCommand, CommandError

from annotator.judges.selectors import judge_of
from annotator.judges.services.labels import judge_remove
from annotator.models import Project


class Command(BaseCommand):
    help = "Remove a judge (an automatic rater) and its labels from a project."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("name")

    def handle(self, *args, slug, name, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        judge = judge_of(project, name)
        if judge is None:
            raise CommandError(f"no judge {name!r} in project {slug!r}")
        judge_remove(judge=judge)
        self.stdout.write(f"removed judge {name}")
