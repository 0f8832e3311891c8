"""Which candidate a comparison item shows first to each of its annotators: balanced, and fixed once given.

An item's k-th assignment shows candidate A first when k is even and B first when k is odd, the parity
being started per item by a seeded hash of the item (so that across items neither A nor B leads); any
order already given counts first, so that an item whose assignments were handed back and given again
stays balanced: among its assignments, the two orders differ by at most one. The order is decided when
the assignment is made and kept on it (``Assignment.shown_first``); every judgement records it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable

from annotator.models import Assignment, Project
from annotator.pairwise.models import SLOTS
from annotator.presets.of_project import project_scheme


def item_starts_with(project_id: int, dialogue_id: int) -> str:
    """The candidate the item's first assignment shows first: a hash of the item, so reproducible.

    >>> {item_starts_with(1, d) for d in range(20)} == {"a", "b"}
    True
    """
    digest = hashlib.sha256(f"pair-order:{project_id}:{dialogue_id}".encode()).digest()
    return SLOTS[digest[0] & 1]


def next_shown_first(counts: Counter, start: str) -> str:
    """The order for an item's next assignment, given how often each order was given (``counts``).

    >>> next_shown_first(Counter(), "b"), next_shown_first(Counter({"b": 1}), "b")
    ('b', 'a')
    >>> next_shown_first(Counter({"a": 2}), "a")
    'b'
    """
    if counts["a"] != counts["b"]:
        return "a" if counts["a"] < counts["b"] else "b"
    return start


def pair_orders_fill(*, project: Project, dialogue_ids: Iterable[int] | None = None) -> int:
    """Give every not-imported assignment of the project's comparison items that has none its shown order
    (in the order the assignments were made); returns how many were given. Call it where assignments are made,
    inside the transaction that holds the project's lock, so two hand-outs never count the same item at once.
    Other presets: nothing to do."""
    if project_scheme(project).comparison is None:
        return 0
    rows = Assignment.objects.filter(dialogue__project=project, imported=False)
    if dialogue_ids is not None:
        rows = rows.filter(dialogue_id__in=list(dialogue_ids))
    counts: dict[int, Counter] = {}
    missing: list[tuple[int, int]] = []
    for pk, dialogue_id, shown in rows.order_by("pk").values_list("pk", "dialogue_id", "shown_first"):
        if shown:
            counts.setdefault(dialogue_id, Counter())[shown] += 1
        else:
            missing.append((pk, dialogue_id))
    given: dict[str, list[int]] = {"a": [], "b": []}
    for pk, dialogue_id in missing:
        seen = counts.setdefault(dialogue_id, Counter())
        shown = next_shown_first(seen, item_starts_with(project.pk, dialogue_id))
        seen[shown] += 1
        given[shown].append(pk)
    for shown, pks in given.items():
        for start in range(0, len(pks), 2000):
            Assignment.objects.filter(pk__in=pks[start : start + 2000]).update(shown_first=shown)
    return len(missing)
