from django.core.management.base import BaseCommand, CommandError

from annotator.models import Project
from evaluation.models import Run
from evaluation.runs.services.upload import run_delete


class Command(BaseCommand):
    help = "Lead: a project's system runs - list, delete one (score new ones with score_run)."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        p = sub.add_parser("list", help="Runs: id, status, name.")
        p.add_argument("slug")
        p = sub.add_parser("delete", help="Delete a run (the comparisons of the rest are refreshed).")
        p.add_argument("slug")
        p.add_argument("run", type=int)

    def handle(self, *args, action, slug, run=None, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        if action == "list":
            for r in Run.objects.filter(project=project).defer("source", "per_dialogue").order_by("pk"):
                self.stdout.write(f"{r.pk}\t{r.status}\t{r.name}")
            return
        try:
            name = run_delete(project=project, run_id=run)
        except Run.DoesNotExist:
            raise CommandError(f"no run {run} in {slug}") from None
        self.stdout.write(f"deleted run {run} ({name})")
