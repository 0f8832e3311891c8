"""The dashboard's per-annotator sections a page at a time: sorted, searched, the flagged annotators first.

A collection such as DBDC3 English has 561 annotators: one row each in the annotator table and in the
reliability table made a page 109,000 px tall and slow to render. Both tables show the same page of
annotators in the same order, chosen by the query string (``sort``, ``dir``, ``name``, ``page``), so the
page works without its script and every page has its own address. Names of imported accounts
(``<project>.imported.<id>``) are shown as their id.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.utils.translation import gettext_lazy as _

from annotator.selectors.manage import natural_key

ANNOTATORS_PER_PAGE = 50

# sort key -> (its label, its first direction): the direction that puts what a lead looks for on top
SORTS = {
    "flags": (_("flags (flagged first)"), "desc"),
    "name": (_("name"), "asc"),
    "judgements": (_("judgements"), "desc"),
    "agreement": (_("agreement with the majority"), "asc"),
}


def display_name(name: str, slug: str) -> str:
    """An annotator's name as a lead knows it: an imported account's id without the project's prefix.

    >>> display_name("dbdc3-en.imported.4xvmgin0", "dbdc3-en"), display_name("ann2", "dbdc3-en")
    ('4xvmgin0', 'ann2')
    """
    prefix = f"{slug}.imported."
    return name[len(prefix) :] if name.startswith(prefix) and len(name) > len(prefix) else name


@dataclass(frozen=True)
class AnnotatorListing:
    """How the lead asked for the annotators: sort key, direction, a name to look for."""

    sort: str = "flags"
    direction: str = "desc"
    name: str = ""

    @classmethod
    def from_query(cls, query) -> AnnotatorListing:
        """From a page's query string; values that do not parse fall back to flagged first."""
        sort = query.get("sort", "")
        sort = sort if sort in SORTS else "flags"
        direction = query.get("dir", "")
        direction = direction if direction in ("asc", "desc") else SORTS[sort][1]
        return cls(sort=sort, direction=direction, name=query.get("name", "").strip().replace("\x00", "")[:100])

    def as_query(self, **changes) -> str:
        """This listing's query string (without the page), with ``changes``; defaults left out."""
        parts = {"sort": self.sort, "dir": self.direction, "name": self.name, **changes}
        if parts["sort"] == "flags" and parts["dir"] == SORTS["flags"][1]:
            parts.pop("sort"), parts.pop("dir")
        elif parts["dir"] == SORTS[parts["sort"]][1]:
            parts.pop("dir")
        return urlencode({k: v for k, v in parts.items() if v})

    def header_query(self, sort: str) -> str:
        """The query a column header links to: its sort, or the other direction when it is the current one."""
        if sort == self.sort:
            return self.as_query(dir="asc" if self.direction == "desc" else "desc")
        return self.as_query(sort=sort, dir=SORTS[sort][1])

    def aria_sort(self, sort: str) -> str:
        """The ``aria-sort`` of a column header sorted by ``sort``."""
        if sort != self.sort:
            return "none"
        return "ascending" if self.direction == "asc" else "descending"


def _sort_value(sort: str, name: str, figures: dict, reliability: dict):
    if sort == "judgements":
        return figures.get("judgements") or reliability.get("judgements") or 0
    if sort == "agreement":
        value = figures.get("agreement_with_majority")
        return (value is not None, value if value is not None else 0)
    if sort == "flags":
        return len(reliability.get("flags") or ())
    return natural_key(name)


def annotators_page(*, payload: dict, slug: str, listing: AnnotatorListing, page: str | int | None) -> dict:
    """One page of the payload's annotators in the listing's order, each with its figures and reliability.

    Ties (and the flags sort within flagged and unflagged) go by name; an undefined agreement sorts last
    either way. Returns the page (``rows``: name, display name, figures, reliability, flagged), the
    number of flagged annotators and the sort headers' links.
    """
    figures = payload.get("annotators") or {}
    reliability = (payload.get("reliability") or {}).get("annotators") or {}
    names = list(dict.fromkeys([*figures, *reliability]))
    flagged = {n for n in names if (reliability.get(n) or {}).get("flags")}
    if listing.name:
        wanted = listing.name.lower()
        names = [n for n in names if wanted in display_name(n, slug).lower()]
    names.sort(key=natural_key)  # ties by name, whatever the direction
    if listing.sort != "name":
        reverse = listing.direction == "desc"
        names.sort(key=lambda n: _sort_value(listing.sort, n, figures.get(n) or {}, reliability.get(n) or {}),
                   reverse=reverse)  # fmt: skip
        if listing.sort == "agreement":  # undefined last, whatever the direction
            names.sort(key=lambda n: (figures.get(n) or {}).get("agreement_with_majority") is None)
    elif listing.direction == "desc":
        names.reverse()
    found: Page = Paginator(names, ANNOTATORS_PER_PAGE).get_page(page)
    found.object_list = [
        {
            "name": n,
            "shown": display_name(n, slug),
            "figures": figures.get(n),
            "reliability": reliability.get(n),
            "flagged": n in flagged,
        }
        for n in found.object_list
    ]
    return {
        "page": found,
        "listing": listing,
        "query": listing.as_query(),
        "flagged": len(flagged),
        "total": len(figures.keys() | reliability.keys()),
        "headers": {
            s: {"label": label, "query": listing.header_query(s), "aria_sort": listing.aria_sort(s)}
            for s, (label, _first) in SORTS.items()
        },
    }
