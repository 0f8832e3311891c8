"""The counts beside a statistic come from what the statistic is computed from: the NLPCC sample's kappas
are computed from imported counts (3 annotators per item, no judgement rows), and the dashboard once said
"Annotators 0" and "from 0 judgements" beside them."""

from __future__ import annotations

import re

import pytest

from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add
from evaluation.services.incremental import statistics_with_running_figures
from evaluation.services.statistics import statistics_recompute
from tests.factories import project_with_submissions, user_make

pytestmark = pytest.mark.django_db


def row(page: str, key: str) -> list[str]:
    """The cells of the agreement table's row of criterion ``key``, as text."""
    found = re.search(rf'<tr data-criterion="{re.escape(key)}">(.*?)</tr>', page, re.S).group(1)
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", found, re.S)]


@pytest.mark.shared_data
def test_imported_counts_are_named_beside_the_kappas_they_give(shared_data, make_project, client):
    project = make_project("nlpcc", slug="nlpcc-sample")
    dialogues_import(project=project, paths=[shared_data / "nlpcc2019_task3_sample.xlsx"])
    lead = user_make("sample-lead")
    membership_add(project=project, user=lead, role="lead")
    stored = statistics_recompute(project_id=project.pk)
    labels = stored.payload["labels"]
    # 200 replies x 3 annotators x 10 questions, all imported as counts
    assert labels == {"total": 6000, "judgements": 0, "imported_counts": 6000, "annotators": 0}
    entry = statistics_with_running_figures(project, stored.payload)[0]["criteria"]["severe_error"]
    assert entry["fleiss_kappa"] is not None and entry["n_labels"] == entry["n_imported_counts"] == 600
    client.force_login(lead)
    page = client.get("/projects/nlpcc-sample/dashboard/").content.decode()
    cells = row(page, "severe_error")
    assert cells[2] == "unknown: imported counts (600 labels)"  # not "0" beside the kappa
    assert cells[1] == "200"
    sentence = re.sub(r"<[^>]+>", "", re.search(r'<section class="card freshness".*?</p>', page, re.S).group(0))
    assert "from 6000 labels: 0 judgements by 0 annotators and 6000 imported counts" in " ".join(sentence.split())


def test_own_judgements_say_how_many_annotators_gave_them(client):
    work = project_with_submissions("dbdc", slug="own")
    stored = statistics_recompute(project_id=work.project.pk)
    labels = stored.payload["labels"]
    assert labels["imported_counts"] == 0 and labels["total"] == labels["judgements"] == stored.n_judgements
    n = stored.payload["criteria"]["breakdown"]["n_annotators"]
    assert labels["annotators"] == n == 2 + 3  # the two own annotators and the demo file's three
    client.force_login(work.lead)
    page = client.get("/projects/own/dashboard/").content.decode()
    assert row(page, "breakdown")[2] == str(n)
    sentence = " ".join(re.sub(r"<[^>]+>", "", re.search(r'id="fresh-heading".*?</p>', page, re.S).group(0)).split())
    assert f"from {stored.n_judgements} judgements by {n} annotators" in sentence
