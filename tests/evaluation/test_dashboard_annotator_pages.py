"""The dashboard's per-annotator sections at DBDC3 English's size (561 annotators): a page of 50, flagged
annotators first, sortable, searchable; the kappa heat map numbered with a key. Checked against plain sorts
written here, on a payload of the real shape."""

from __future__ import annotations

import random
import re

import pytest
from django.http import QueryDict
from django.utils import timezone

from annotator.selectors.manage import natural_key
from evaluation.selectors.dashboard_annotators import ANNOTATORS_PER_PAGE, AnnotatorListing, annotators_page
from evaluation.selectors.kappa_maps import kappa_maps, reliability_chart_data

SLUG = "dbdc3-en"


def payload(n: int = 561, flagged: int = 31, seed: int = 3) -> dict:
    rng = random.Random(seed)
    names = [f"{SLUG}.imported.{rng.getrandbits(40):010x}" for _ in range(n)]
    figures = {
        name: {
            "judgements": rng.randint(10, 400),
            "agreement_with_majority": None if i % 97 == 5 else round(rng.random(), 3),
            "median_seconds": None,
            "criteria": {"breakdown": {"mean": 0.5, "z_bias": 0.1}},
        }
        for i, name in enumerate(names)
    }
    flags = set(rng.sample(names, flagged))
    reliability = {
        name: {
            "judgements": figures[name]["judgements"],
            "flags": ["x"] * (1 + names.index(name) % 3) if name in flags else [],
        }
        for name in names
    }
    top = names[:30]
    kappa = [[1.0 if a == b else round(rng.uniform(-0.2, 0.6), 3) for b in range(30)] for a in range(30)]
    return {
        "annotators": figures,
        "reliability": {
            "annotators": reliability,
            "kappa": {"breakdown": {"annotators": top, "kappa": kappa, "of": n, "weights": "linear"}},
        },
    }


def listing(**query) -> AnnotatorListing:
    q = QueryDict(mutable=True)
    q.update(query)
    return AnnotatorListing.from_query(q)


def shown_all(data: dict, chosen: AnnotatorListing) -> list[str]:
    pages, page, names = None, 1, []
    while pages is None or page <= pages:
        found = annotators_page(payload=data, slug=SLUG, listing=chosen, page=page)
        pages = found["page"].paginator.num_pages
        assert len(found["page"].object_list) <= ANNOTATORS_PER_PAGE
        names += [row["name"] for row in found["page"]]
        page += 1
    return names


def test_the_default_order_puts_the_flagged_first_most_flags_first_then_names():
    data = payload()
    rel = data["reliability"]["annotators"]
    expected = sorted(rel, key=lambda n: (-len(rel[n]["flags"]), natural_key(n)))
    first = annotators_page(payload=data, slug=SLUG, listing=listing(), page=None)
    assert first["flagged"] == 31 and first["total"] == 561
    assert first["page"].paginator.num_pages == 12 and len(first["page"].object_list) == 50
    assert [r["flagged"] for r in first["page"]][:31] == [True] * 31 and not first["page"][31]["flagged"]
    assert shown_all(data, listing()) == expected
    assert first["page"][0]["shown"] == first["page"][0]["name"].removeprefix(f"{SLUG}.imported.")


@pytest.mark.parametrize("direction", ["asc", "desc"])
def test_sorts_by_judgements_and_agreement_match_plain_sorts(direction):
    data = payload()
    figures = data["annotators"]
    by_name = sorted(figures, key=natural_key)
    judgements = sorted(by_name, key=lambda n: figures[n]["judgements"], reverse=direction == "desc")
    assert shown_all(data, listing(sort="judgements", dir=direction)) == judgements
    defined = [n for n in by_name if figures[n]["agreement_with_majority"] is not None]
    undefined = [n for n in by_name if figures[n]["agreement_with_majority"] is None]
    agreement = sorted(defined, key=lambda n: figures[n]["agreement_with_majority"], reverse=direction == "desc")
    assert shown_all(data, listing(sort="agreement", dir=direction)) == agreement + undefined


def test_a_name_search_and_the_header_links_keep_the_listing():
    data = payload()
    some = next(iter(data["annotators"])).removeprefix(f"{SLUG}.imported.")[:4]
    found = annotators_page(payload=data, slug=SLUG, listing=listing(name=some.upper()), page=None)
    names = [r["shown"] for r in found["page"]]
    assert names and all(some in n for n in names)
    assert found["page"].paginator.count == sum(some in n for n in (k.split(".")[-1] for k in data["annotators"]))
    chosen = listing(sort="judgements", name="ab")
    assert chosen.header_query("judgements") == "sort=judgements&dir=asc&name=ab"  # the other direction
    assert chosen.header_query("name") == "sort=name&name=ab"
    assert chosen.aria_sort("judgements") == "descending" and chosen.aria_sort("name") == "none"
    assert listing(sort="nonsense", dir="sideways") == AnnotatorListing()


def test_kappa_maps_number_the_annotators_and_label_every_cell():
    data = payload()
    (heat,) = kappa_maps(reliability=data["reliability"], slug=SLUG)
    names = [n.removeprefix(f"{SLUG}.imported.") for n in data["reliability"]["kappa"]["breakdown"]["annotators"]]
    assert heat["names"] == list(enumerate(names, start=1)) and heat["of"] == 561 and heat["shown"] == 30
    cell = heat["rows"][2]["cells"][7]
    assert cell["pair"] == f"3 {names[2]} × 8 {names[7]}"
    assert cell["value"] == data["reliability"]["kappa"]["breakdown"]["kappa"][2][7]
    chart = reliability_chart_data(reliability=data["reliability"], slug=SLUG)
    assert chart["kappa"]["breakdown"]["annotators"] == names and chart["control"] == {}


def test_the_dashboard_page_of_a_large_project_shows_one_page_of_annotators(client, make_project, make_user):
    from annotator.services.projects import membership_add
    from evaluation.models import ProjectStatistics

    project = make_project("dbdc", slug=SLUG)
    lead = make_user("lead")
    membership_add(project=project, user=lead, role="lead")
    data = payload()
    data.update(criteria={}, value_counts={}, labels={}, population=None)
    ProjectStatistics.objects.create(
        project=project, payload=data, n_judgements=1, fingerprint="x", library_version="t", computed_at=timezone.now()
    )
    client.force_login(lead)
    page = client.get(f"/projects/{SLUG}/dashboard/?sort=judgements&page=2").content.decode()
    table = page.split('id="annotator-table"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr data-annotator="([^"]+)"', table)
    figures = data["annotators"]
    expected = sorted(sorted(figures, key=natural_key), key=lambda n: figures[n]["judgements"], reverse=True)[50:100]
    assert rows == [n.removeprefix(f"{SLUG}.imported.") for n in expected]
    reliability = page.split('id="reliability-table"', 1)[1].split("</table>", 1)[0]
    assert re.findall(r'<tr data-annotator="([^"]+)"', reliability) == rows  # the same page in the same order
    assert 'aria-sort="descending"' in table and "Page 2 of 12" in page
    assert 'rel="next"' in page and "sort=judgements&amp;page=3#annotators-heading" in page
    assert "stc3" not in page and f"{SLUG}.imported." not in page.split('id="kappa-heading"', 1)[1].split("<ol", 1)[0]
