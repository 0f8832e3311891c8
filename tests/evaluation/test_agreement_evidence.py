"""The intervals and the data behind each agreement figure, as the statistics payload (``stats --json``), the
dashboard and its CSV downloads give them, on a generated breakdown project whose judgements are read back
from the database and recomputed independently."""

import csv
import io
import json
from collections import defaultdict

import numpy as np
import pytest
from django.core.management import call_command
from django.test import Client

from annotator.models import Judgement
from evaluation.services.incremental import statistics_with_running_figures
from evaluation.services.statistics import statistics_recompute
from tests.factories import breakdown_project, submit_all

pytestmark = pytest.mark.django_db

LABELS = ("O", "T", "X")


@pytest.fixture
def judged(tmp_path):
    """20 breakdown dialogues (40 system turns) judged by 3 annotators, with labels that agree more than chance."""
    work = breakdown_project(tmp_path, dialogues=20, annotators=3, k=3, slug="ev")
    rng = np.random.default_rng(30)
    truth = {}

    def choose(assignment, key, unit):
        true = truth.setdefault((assignment.dialogue_id, unit), rng.choice(3, p=[0.6, 0.25, 0.15]))
        return LABELS[true if rng.random() < 0.7 else rng.integers(3)]

    for person in work.annotators:
        submit_all(person, work.project, choose)
    return work


def labels_per_unit(project) -> list[list[str]]:
    units = defaultdict(list)
    for dialogue, unit, value in Judgement.objects.filter(assignment__dialogue__project=project).values_list(
        "assignment__dialogue_id", "unit", "value"
    ):
        units[(dialogue, unit)].append(value)
    return list(units.values())


def test_stats_json_gives_each_value_its_interval_and_the_data_behind_it(judged, capsys):
    from krippendorff import alpha as reference_alpha

    call_command("stats", judged.project.slug, "--json")
    entry = json.loads(capsys.readouterr().out)["criteria"]["breakdown"]
    units = labels_per_unit(judged.project)
    assert entry["n_units"] == len(units) == 40 and entry["n_annotators"] == 3
    # the existing figures are where readers find them; their intervals beside them
    intervals = entry["intervals"]
    assert (intervals["confidence"], intervals["jackknife_below"]) == (0.95, 30)
    for name in ("fleiss_kappa", "randolph_kappa"):
        assert intervals[name]["ci_method"] == "bootstrap" and intervals[name]["resamples"] == 1000
        low, high = intervals[name]["ci"]
        assert low < entry[name] < high
    assert (
        set(intervals["krippendorff_alpha"]) == set(entry["krippendorff_alpha"]) == {"nominal", "ordinal", "interval"}
    )
    for level, interval in intervals["krippendorff_alpha"].items():
        low, high = interval["ci"]
        assert low < entry["krippendorff_alpha"][level] < high and high - low < 0.6
    # the data behind them, recomputed from the judgements table
    counts = np.array([[labels.count(v) for v in LABELS] for labels in units])
    assert entry["categories"] == list(LABELS)
    assert entry["category_counts"] == counts.sum(axis=0).tolist()
    assert entry["pairable_values"] == int(counts.sum()) == 120
    coincidences = np.zeros((3, 3))
    for labels in units:  # every ordered pair of labels of a unit by two annotators, weighted 1 / (m - 1)
        for i, first in enumerate(labels):
            for j, second in enumerate(labels):
                if i != j:
                    coincidences[LABELS.index(first), LABELS.index(second)] += 1 / (len(labels) - 1)
    np.testing.assert_allclose(entry["coincidences"], coincidences, atol=1e-6)
    assert entry["krippendorff_alpha"]["nominal"] == pytest.approx(
        reference_alpha(value_counts=counts, level_of_measurement="nominal"), abs=1e-9
    )
    # label merges and the Cohen matrix carry theirs too
    for merge in entry["merges"].values():
        assert merge["intervals"]["fleiss_kappa"]["ci_method"] == "bootstrap" and len(merge["categories"]) == 2


def test_the_cohen_matrix_has_an_interval_for_every_pair(judged):
    kappa = statistics_recompute(project_id=judged.project.pk).payload["reliability"]["kappa"]["breakdown"]
    n = len(kappa["annotators"])
    for a in range(n):
        for b in range(n):
            if a == b:
                assert kappa["ci_method"][a][b] is None
                continue
            assert kappa["ci_method"][a][b] == "bootstrap" and kappa["shared"][a][b] == 40
            assert kappa["ci_low"][a][b] <= kappa["kappa"][a][b] <= kappa["ci_high"][a][b]
            assert kappa["ci_low"][a][b] == kappa["ci_low"][b][a]
    assert [sum(row) for row in kappa["category_counts"]] == [40] * n


def test_two_recomputations_give_identical_figures(judged):
    first = statistics_recompute(project_id=judged.project.pk, force=True).payload
    second = statistics_recompute(project_id=judged.project.pk, force=True).payload
    assert first["criteria"] == second["criteria"]
    assert first["reliability"]["kappa"] == second["reliability"]["kappa"]


def test_few_units_switch_to_the_jackknife_and_say_so(tmp_path):
    work = breakdown_project(tmp_path, dialogues=5, annotators=3, k=3, slug="few")  # 10 units
    for person in work.annotators:
        submit_all(person, work.project, lambda a, key, unit: LABELS[(a.annotator_id + unit + a.dialogue_id) % 3])
    stored = statistics_recompute(project_id=work.project.pk).payload  # its running figures: the live state's
    entry = statistics_with_running_figures(work.project, stored)[0]["criteria"]["breakdown"]
    assert entry["n_units"] == 10
    assert entry["intervals"]["fleiss_kappa"]["ci_method"] == "jackknife"
    assert entry["intervals"]["fleiss_kappa"]["resamples"] == 10
    assert all(i["ci_method"] == "jackknife" for i in entry["intervals"]["krippendorff_alpha"].values())


def test_the_dashboard_shows_intervals_and_downloads_the_matrices(judged):
    client = Client()
    client.force_login(judged.lead)
    stored = statistics_recompute(project_id=judged.project.pk).payload
    entry = statistics_with_running_figures(judged.project, stored)[0]["criteria"]["breakdown"]
    html = client.get(f"/projects/{judged.project.slug}/dashboard/").content.decode()
    low, high = entry["intervals"]["fleiss_kappa"]["ci"]
    assert f'{entry["fleiss_kappa"]:.4f} <span class="ci"' in html and f"[{low:.3f}, {high:.3f}]" in html
    assert 'data-block="breakdown/merge/NB+PB,B"' in html and "120 pairable values" in html
    url = f"/projects/{judged.project.slug}/dashboard/agreement.csv"
    rows = list(
        csv.reader(io.StringIO(client.get(url, {"block": "breakdown", "table": "coincidences"}).content.decode()))
    )
    assert rows[0] == ["category", "NB", "PB", "B"]
    np.testing.assert_allclose(np.array([r[1:] for r in rows[1:]], dtype=float), entry["coincidences"])
    rows = list(
        csv.reader(io.StringIO(client.get(url, {"block": "breakdown", "table": "categories"}).content.decode()))
    )
    assert [int(r[1]) for r in rows[1:]] == entry["category_counts"]
    merged = client.get(url, {"block": "breakdown/merge/NB+PB,B", "table": "categories"})
    assert merged.status_code == 200 and merged.content.decode().splitlines()[1].startswith("NB+PB,")
    rows = list(csv.reader(io.StringIO(client.get(url, {"block": "breakdown", "table": "cohen"}).content.decode())))
    assert len(rows) == 1 + 3 and rows[0][:4] == ["annotator_a", "annotator_b", "shared_units", "kappa"]
    assert client.get(url, {"block": "nothing", "table": "categories"}).status_code == 404


def test_an_annotator_cannot_download_the_matrices(judged):
    client = Client()
    client.force_login(judged.annotators[0])
    statistics_recompute(project_id=judged.project.pk)
    url = f"/projects/{judged.project.slug}/dashboard/agreement.csv"
    assert client.get(url, {"block": "breakdown", "table": "categories"}).status_code in (403, 404)


def test_the_disputed_units_carry_their_label_distribution_entropy_and_agreement(judged):
    payload = statistics_recompute(project_id=judged.project.pk).payload
    assert payload["disputed"]
    for d in payload["disputed"]:
        n = np.array(list(d["counts"].values()))
        assert d["n_labels"] == n.sum() == 3
        assert d["agreement"] == pytest.approx((n * (n - 1)).sum() / (3 * 2))
        assert d["entropy"] > 0


def test_each_unit_of_the_side_by_side_view_has_the_figures_of_the_disputed_list(judged):
    from annotator.models import Dialogue
    from evaluation.selectors.dashboard import dialogue_judgements_side_by_side

    disputed = statistics_recompute(project_id=judged.project.pk).payload["disputed"][0]
    view = dialogue_judgements_side_by_side(dialogue=Dialogue.objects.get(pk=disputed["dialogue_id"]))
    row = next(r for r in view["rows"] if r["unit"] == disputed["unit"])
    assert row["entropy"] == pytest.approx(disputed["entropy"], abs=1e-12)
    assert row["agreement"] == pytest.approx(disputed["agreement"], abs=1e-12)
    shown = {"O": "NB", "T": "PB", "X": "B"}
    assert row["distribution"] == [(shown[v], n) for v, n in disputed["counts"].items() if n]
    client = Client()
    client.force_login(judged.lead)
    page = client.get(f"/projects/{judged.project.slug}/dialogues/{disputed['dialogue_id']}/judgements/")
    assert f"<td>{row['entropy']:.4f}</td><td>{row['agreement']:.2f}</td>" in page.content.decode()
