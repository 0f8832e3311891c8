"""Reads for the lead's manage page: an overview of fixed size, and the item list a page at a time.

Nothing here grows with the project: per-annotator rows (one per member), counts computed by the
database, and ``ITEMS_PER_PAGE`` items of the filtered list; the page costs the same number of
queries with 2 items and with 5,000.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.db.models import Count, F, Q, QuerySet, Sum
from django.utils.translation import gettext, ngettext

from annotator.models import Assignment, AssignmentStatus, Membership, Project, Role
from annotator.presets.of_project import project_scheme
from annotator.wording import wording_language

ITEMS_PER_PAGE = 50


def natural_key(text: str) -> tuple:
    """Sort key that orders the numbers inside names by value: ann2 before ann10.

    >>> sorted(["ann10", "ann2", "Ann1", "b"], key=natural_key)
    ['Ann1', 'ann2', 'ann10', 'b']
    """
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower()) for part in re.split(r"(\d+)", text))


@dataclass(frozen=True)
class Shortfall:
    """How the project's dialogues stand against K (what the assignment would have to add)."""

    k: int
    active: int  # active annotators (not imported accounts)
    dialogues: int
    short: int  # dialogues with fewer than K annotators once unfinished work of removed annotators is handed back
    reordering: bool  # coherence projects: permutation sets, K does not apply
    k_reason: str = ""  # why the scheme's default K is what it is (when the project keeps it), in the reader's words

    @property
    def too_few_annotators(self) -> bool:
        return not self.reordering and self.active < self.k

    def explanation(self) -> str:
        """What running the assignment will do, or why it cannot, in a sentence or two."""
        if self.reordering:
            if not self.active:
                return gettext("No active annotators yet: add annotators, then run the assignment.")
            return gettext("Each active annotator judges one permutation set of every dialogue.")
        if self.too_few_annotators:
            missing = self.k - self.active
            has = ngettext(
                "This project has %(active)s active annotator, fewer than K = %(k)s:",
                "This project has %(active)s active annotators, fewer than K = %(k)s:",
                self.active,
            ) % {"active": self.active, "k": self.k}
            add = ngettext(
                "every dialogue needs K different annotators, so the assignment cannot run. "
                "Add %(missing)s more annotator or lower K.",
                "every dialogue needs K different annotators, so the assignment cannot run. "
                "Add %(missing)s more annotators or lower K.",
                missing,
            ) % {"missing": missing}
            where = gettext("K is set under “Guidelines and annotators per dialogue”.")
            return " ".join(part for part in (has, add, self.k_reason, where) if part)
        if self.short:
            return gettext(
                "%(short)s of %(dialogues)s dialogues have fewer than K = %(k)s annotators; "
                "running the assignment gives them the rest."
            ) % {"short": self.short, "dialogues": self.dialogues, "k": self.k}
        return gettext("Every dialogue has K = %(k)s annotators.") % {"k": self.k}


def assignment_shortfall(*, project: Project) -> Shortfall:
    """Dialogues short of K, counting submitted work of anyone and unfinished work of active annotators (2 queries)."""
    active = list(
        Membership.objects.filter(project=project, role=Role.ANNOTATOR, active=True, imported=False).values_list(
            "user_id", flat=True
        )
    )
    kept = Q(assignments__imported=False) & (
        Q(assignments__status=AssignmentStatus.SUBMITTED) | Q(assignments__annotator_id__in=active)
    )
    k = project.annotators_per_dialogue
    counts = project.dialogues.annotate(kept=Count("assignments", filter=kept)).aggregate(
        dialogues=Count("pk"), short=Count("pk", filter=Q(kept__lt=k))
    )
    scheme = project_scheme(project)
    k_reason = scheme.text(scheme.k_reason, wording_language()) if scheme.annotators_per_dialogue == k else ""
    return Shortfall(k, len(active), counts["dialogues"], counts["short"], scheme.reordering, k_reason)


def manage_overview(*, project: Project) -> dict:
    """Totals, per-annotator progress (names sorted naturally), members and the shortfall against K."""
    work = Assignment.objects.filter(dialogue__project=project, imported=False)
    submitted = Q(status=AssignmentStatus.SUBMITTED)
    per_annotator = sorted(
        work.values("annotator_id", "annotator__username").annotate(
            assigned=Count("pk"),
            submitted=Count("pk", filter=submitted),
            in_progress=Count("pk", filter=Q(status=AssignmentStatus.IN_PROGRESS)),
            seconds=Sum("seconds_spent"),
        ),
        key=lambda row: natural_key(row["annotator__username"]),
    )
    members = sorted(
        Membership.objects.filter(project=project, imported=False).select_related("user"),
        key=lambda m: (m.role, natural_key(m.user.username)),
    )
    totals = work.aggregate(assigned=Count("pk"), submitted=Count("pk", filter=submitted))
    shortfall = assignment_shortfall(project=project)
    return {
        "per_annotator": per_annotator,
        "members": members,
        "totals": totals,
        "annotators": shortfall.active,
        "n_dialogues": shortfall.dialogues,
        "shortfall": shortfall,
    }


def dialogue_search(text: str) -> str:
    """What a lead typed to find dialogues by id, made safe to look for (trimmed, no NUL, at most 200 characters)."""
    return text.strip().replace("\x00", "")[:200]


@dataclass(frozen=True)
class ItemFilters:
    status: str = ""
    annotator: int | None = None
    dialogue: str = ""

    @classmethod
    def from_query(cls, query) -> ItemFilters:
        """Filters from a page's query string; values that do not parse are ignored."""
        status = query.get("status", "")
        annotator = query.get("annotator", "")
        return cls(
            status=status if status in AssignmentStatus.values else "",
            annotator=int(annotator) if annotator.isdigit() and len(annotator) < 12 else None,
            dialogue=dialogue_search(query.get("dialogue", "")),
        )

    def as_query(self) -> str:
        parts = {"status": self.status, "annotator": self.annotator or "", "dialogue": self.dialogue}
        return urlencode({k: v for k, v in parts.items() if v})


def items_page(*, project: Project, filters: ItemFilters, page: str | int | None) -> Page:
    """One page of the project's items (assignments made on the platform), filtered (2 queries)."""
    return Paginator(items_filtered(project=project, filters=filters), ITEMS_PER_PAGE).get_page(page)


def items_filtered(*, project: Project, filters: ItemFilters) -> QuerySet[Assignment]:
    """The project's items (assignments made on the platform) that ``filters`` keep, in the page's order."""
    items = Assignment.objects.filter(dialogue__project=project, imported=False)
    if filters.status:
        items = items.filter(status=filters.status)
    if filters.annotator:
        items = items.filter(annotator_id=filters.annotator)
    if filters.dialogue:
        items = items.filter(dialogue__external_id__icontains=filters.dialogue)
    return items.select_related("annotator", "dialogue").order_by(
        F("dialogue__position").asc(), "dialogue_id", "annotator__username"
    )


def member_work(*, project: Project, user_id: int) -> dict:
    """A member's items in the project: unfinished and submitted (one query)."""
    return Assignment.objects.filter(dialogue__project=project, annotator_id=user_id, imported=False).aggregate(
        unfinished=Count("pk", filter=~Q(status=AssignmentStatus.SUBMITTED)),
        submitted=Count("pk", filter=Q(status=AssignmentStatus.SUBMITTED)),
    )


def member_removal_message(*, username: str, work: dict, before: Shortfall, after: Shortfall) -> str:
    """What removing a member did to the project's dialogues, and why (``before`` and ``after`` the removal)."""
    parts = [gettext("Removed %(username)s.") % {"username": username}]
    if work["submitted"]:
        parts.append(gettext("Their %(n)s submitted items stay.") % {"n": work["submitted"]})
    if work["unfinished"]:
        parts.append(
            gettext("Their %(n)s unfinished items go back to the pool when you run the assignment.")
            % {"n": work["unfinished"]}
        )
    if after.reordering or not after.short:
        return " ".join(parts)
    newly = after.short - before.short
    short = {"short": after.short, "k": after.k, "newly": newly, "username": username}
    if newly > 0:
        parts.append(
            gettext(
                "%(short)s dialogues have fewer than K = %(k)s annotators (%(newly)s of them because "
                "%(username)s's unfinished items no longer count)."
            )
            % short
        )
    else:
        parts.append(gettext("%(short)s dialogues have fewer than K = %(k)s annotators.") % short)
    if after.too_few_annotators:
        parts.append(
            gettext(
                "Only %(active)s active annotators remain, fewer than K = %(k)s: they stay short until "
                "you add annotators or lower K."
            )
            % {"active": after.active, "k": after.k}
        )
    else:
        parts.append(gettext("Run the assignment to give them other annotators."))
    return " ".join(parts)
