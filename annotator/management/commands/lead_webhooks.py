from annotator.management.lead import LeadCommand
from annotator.models import Webhook, WebhookEvent
from annotator.selectors.webhooks import secret_hint, webhooks_of
from annotator.services.webhooks import webhook_create, webhook_delete, webhook_set_active, webhook_test


class Command(LeadCommand):
    help = "Lead: a project's webhooks - list, add (prints the signing secret once), enable, disable, test, remove."

    def add_subcommands(self, sub):
        p = sub.add_parser("list", help="Webhooks: id, active or not, events, URL, the secret's hint.")
        p.add_argument("slug")
        p = sub.add_parser("add", help="Add a webhook; the signing secret is printed once.")
        p.add_argument("slug")
        p.add_argument("url")
        p.add_argument("--event", action="append", dest="events", choices=WebhookEvent.values, required=True)
        for name, text in (
            ("enable", "Send the webhook's events again."),
            ("disable", "Stop sending its events."),
            ("test", "Send a test delivery now and print its outcome."),
            ("remove", "Remove the webhook and its deliveries."),
        ):
            p = sub.add_parser(name, help=text)
            p.add_argument("slug")
            p.add_argument("webhook", type=int)

    def do_list(self, project, **options):
        for w in webhooks_of(project=project):
            active = "active" if w.active else "disabled"
            self.say(f"{w.pk}\t{active}\t{','.join(w.events)}\t{w.url}\t{secret_hint(w.secret)}")

    def do_add(self, project, *, url, events, **options):
        webhook, secret = webhook_create(project=project, url=url, events=events)
        self.say(f"webhook {webhook.pk} added; its signing secret (shown once): {secret}")

    def _webhook(self, project, pk) -> Webhook:
        return Webhook.objects.get(project=project, pk=pk)

    def do_enable(self, project, *, webhook, **options):
        webhook_set_active(webhook=self._webhook(project, webhook), active=True)
        self.say(f"webhook {webhook} is active")

    def do_disable(self, project, *, webhook, **options):
        webhook_set_active(webhook=self._webhook(project, webhook), active=False)
        self.say(f"webhook {webhook} is disabled")

    def do_test(self, project, *, webhook, **options):
        delivery = webhook_test(webhook=self._webhook(project, webhook))
        self.say(f"test delivery {delivery.pk}: {delivery.status} {delivery.status_code or ''}".rstrip())

    def do_remove(self, project, *, webhook, **options):
        webhook_delete(webhook=self._webhook(project, webhook))
        self.say(f"removed webhook {webhook}")
