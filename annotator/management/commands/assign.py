from django.core.management.base import BaseCommand, CommandError

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Project


class Command(BaseCommand):
    help = (
        "Assign dialogues so each has K different annotators (balanced loads, reproducible with --seed); "
        "coherence projects get balanced permutation sets. Only what is missing is assigned."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--annotators-per-dialogue", type=int, dest="k")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--sets", type=int, default=3, help="Coherence projects: permutations per dialogue.")
        parser.add_argument(
            "--keep-unfinished",
            action="store_true",
            help="Do not hand back unfinished work of annotators who left the project.",
        )

    def handle(self, *args, slug, k, seed, sets, keep_unfinished, **options):
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            raise CommandError(f"no project {slug!r}")
        if k is not None:
            project.annotators_per_dialogue = k
            project.save(update_fields=["annotators_per_dialogue"])
        try:
            report = assignments_create_balanced(
                project=project, seed=seed, sets=sets, hand_back_unfinished=not keep_unfinished
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"created {report.created} assignments ({report.handed_back} handed back); loads: "
            + ", ".join(f"{u} {n}" for u, n in sorted(report.loads.items()))
        )
