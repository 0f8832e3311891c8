from annotator.management.lead import LeadCommand
from annotator.models import ImportBatch
from annotator.services.import_batches import import_batch_remove


class Command(LeadCommand):
    help = "Lead: list a project's imports, remove one (its dialogues, assignments and judgements)."

    def add_subcommands(self, sub):
        p = sub.add_parser("list", help="Imports: id, status, files, dialogues.")
        p.add_argument("slug")
        p = sub.add_parser("remove", help="Remove an import and everything it brought.")
        p.add_argument("slug")
        p.add_argument("batch", type=int)

    def do_list(self, project, **options):
        for b in ImportBatch.objects.filter(project=project).defer("source").order_by("pk"):
            self.say(f"{b.pk}\t{b.status}\t{b.file_names}")

    def do_remove(self, project, *, batch, **options):
        c = import_batch_remove(project=project, batch_id=batch, user=None).contents
        self.say(
            f"removed import {batch}: {c.dialogues} dialogues, {c.assignments} assignments, "
            f"{c.submitted_judgements} submitted judgements"
        )
