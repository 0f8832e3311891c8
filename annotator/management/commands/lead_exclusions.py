from annotator.management.lead import LeadCommand
from annotator.models import AnnotatorExclusion
from annotator.services.exclusions import annotator_exclude, annotator_include


class Command(LeadCommand):
    help = "Lead: exclude annotators from the statistics and gold (with a reason), list, include again."

    def add_subcommands(self, sub):
        p = sub.add_parser("list", help="Excluded annotators with the reasons.")
        p.add_argument("slug")
        p = sub.add_parser("add", help="Exclude an annotator (username or imported source id).")
        p.add_argument("slug")
        p.add_argument("username")
        p.add_argument("--reason", required=True)
        p = sub.add_parser("remove", help="Count the annotator's judgements again.")
        p.add_argument("slug")
        p.add_argument("username")

    def do_list(self, project, **options):
        for e in AnnotatorExclusion.objects.filter(project=project).select_related("user").order_by("user__username"):
            self.say(f"{e.user.username}\t{e.reason}")

    def do_add(self, project, *, username, reason, **options):
        annotator_exclude(project=project, username=username, reason=reason, excluded_by=None)
        self.say(f"excluded {username} from {project.slug}")

    def do_remove(self, project, *, username, **options):
        lifted = annotator_include(project=project, username=username)
        self.say(f"included {username} again" if lifted else f"{username} was not excluded")
