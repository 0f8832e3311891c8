"""Webhooks: each URL with its events, without its secret (shared with the receiver, it never leaves the instance).

A restored webhook gets a new secret and is restored inactive: its receiver checks signatures with the old one.
Delete it and add it again to be shown a secret, or switch it on once the receiver has the new one. The log of
deliveries is left out (``evaluation.archive.coverage``).
"""

from __future__ import annotations

import secrets

from django.utils.translation import ngettext

from annotator.models import Webhook, WebhookEvent
from evaluation.archive.context import Names, Restoring
from evaluation.archive.fields import fields_export, fields_restore, plain_fields, rows_create
from scoring.errors import N_

WEBHOOK = plain_fields(Webhook, without=["secret"])


def export(names: Names) -> dict:
    hooks = list(Webhook.objects.filter(project=names.project).order_by("pk").values("created_by_id", *WEBHOOK))
    usernames = names.usernames(h["created_by_id"] for h in hooks)
    return {"webhooks": [fields_export(h, WEBHOOK) | {"created_by": usernames.get(h["created_by_id"])} for h in hooks]}


def restore(restoring: Restoring) -> None:
    r, rows = restoring.r, []
    for i, archived in enumerate(restoring.part("webhooks")):
        where = f"webhooks[{i}]"
        values = fields_restore(r, archived, Webhook, WEBHOOK, where)
        events = r.items(archived, "events", str, where)
        if not events or any(e not in WebhookEvent.values or e == WebhookEvent.PING for e in events):
            raise r.error(N_("expected one or more events of %(events)s"), f"{where}.events",
                          events=", ".join(e for e in WebhookEvent.values if e != WebhookEvent.PING))  # fmt: skip
        values["active"] = False
        created_by = restoring.people.someone(r, archived.get("created_by"), f"{where}.created_by")
        secret = "whsec_" + secrets.token_hex(24)
        rows.append(Webhook(project=restoring.project, secret=secret, created_by_id=created_by, **values))
    rows_create(Webhook, rows)
    if rows:
        restoring.notes.append(
            ngettext(
                "%(count)d webhook was restored switched off, with a new secret: add it again to be shown one.",
                "%(count)d webhooks were restored switched off, with new secrets: add them again to be shown one.",
                len(rows),
            )
            % {"count": len(rows)}
        )
