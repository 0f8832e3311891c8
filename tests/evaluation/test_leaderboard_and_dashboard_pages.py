"""The leaderboard (grouped metrics, sorting with direction, options of the preset, deleting a run, why
significance is missing) and the dashboard (labels annotators see, disputed units only, units named,
natural order, UCH explained), read with Django's client."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotator.models import Assignment
from annotator.services.imports import dialogues_import
from annotator.services.judgements import Given, judgements_save
from annotator.services.projects import membership_add
from evaluation.models import ProjectStatistics, Run, RunComparison
from evaluation.runs.services.compare import comparisons_refresh
from evaluation.selectors.fingerprint import judgements_fingerprint
from scoring.metric_names import BREAKDOWN_METRICS
from tests.factories import project_with_work, user_make
from tests.fixtures.collections import dbdc_dialogue, write_json

pytestmark = pytest.mark.django_db


def lead_of(project, client, name="board-lead"):
    lead = user_make(name)
    membership_add(project=project, user=lead, role="lead")
    client.force_login(lead)
    return lead


def breakdown_run(project, name: str, mse: float | None, f1: float | None, per_dialogue: dict | None = None) -> Run:
    scores = dict.fromkeys(BREAKDOWN_METRICS, 0.5)
    scores["MSE(NB,PB,B)"], scores["F1(B)"] = mse, f1
    status = "scored" if mse is not None else "failed"
    return Run.objects.create(
        project=project,
        name=name,
        kind="dbdc",
        status=status,
        error="" if mse is not None else "bad.labels.json: dialogue x: field turns: is missing",
        scores={"breakdown": scores} if mse is not None else {},
        per_dialogue=per_dialogue or {},
        gold_fingerprint=judgements_fingerprint(project),  # scored against the current gold
    )


def header_metrics(page: str) -> list[str]:
    return re.findall(r'<th scope="col" data-metric="([^"]+)"', page)


def run_order(page: str) -> list[str]:
    return re.findall(r'<tr data-run="([^"]+)">', page)


@pytest.fixture
def board(make_project, client):
    project = make_project("dbdc", slug="board")
    lead_of(project, client)
    breakdown_run(project, "middle", 0.20, 0.50)
    breakdown_run(project, "best", 0.10, 0.70)
    breakdown_run(project, "broken", None, None)
    breakdown_run(project, "worst", 0.30, 0.40)
    return project


def test_the_26_breakdown_metrics_are_grouped_with_the_main_four_shown(board, client):
    page = client.get(reverse("leaderboard", args=["board"])).content.decode()
    assert header_metrics(page) == [
        "breakdown.Accuracy(NB,PB,B)",
        "breakdown.F1(B)",
        "breakdown.JSD(NB,PB,B)",
        "breakdown.MSE(NB,PB,B)",
    ]
    tabs = re.findall(r'class="tab(?: current)?"[^>]*>([^<]+)<', page)
    assert tabs == [
        "Main metrics (4)",
        "Accuracy (6)",
        "F1, precision, recall (8)",
        "JSD (6)",
        "MSE (6)",
        "All metrics (26)",
    ]
    assert len(header_metrics(client.get(reverse("leaderboard", args=["board"]) + "?group=all").content.decode())) == 26
    mse = header_metrics(client.get(reverse("leaderboard", args=["board"]) + "?group=MSE").content.decode())
    assert mse == [f"breakdown.{m}" for m in BREAKDOWN_METRICS if m.startswith("MSE")]


def test_sorting_by_any_metric_puts_the_best_first_by_its_direction(board, client):
    url = reverse("leaderboard", args=["board"])
    # MSE: lower is better
    page = client.get(url, {"sort": "breakdown.MSE(NB,PB,B)"}).content.decode()
    assert run_order(page) == ["best", "middle", "worst", "broken"]
    assert "Sorted by <strong>MSE(NB,PB,B)</strong>, best first (lower is better)." in page
    assert 'data-metric="breakdown.MSE(NB,PB,B)" aria-sort="ascending"' in page
    # F1: higher is better; the run without scores stays last either way
    page = client.get(url, {"sort": "breakdown.F1(B)"}).content.decode()
    assert run_order(page) == ["best", "middle", "worst", "broken"]
    assert 'data-metric="breakdown.F1(B)" aria-sort="descending"' in page
    page = client.get(url, {"sort": "breakdown.F1(B)", "order": "worst"}).content.decode()
    assert run_order(page) == ["worst", "middle", "best", "broken"]
    assert "worst first (higher is better)" in page
    # a metric of another group sorts too, and the header links keep the group shown
    page = client.get(url, {"sort": "breakdown.Recall(B)", "group": "JSD"}).content.decode()
    assert "Sorted by <strong>Recall(B)</strong>" in page
    assert 'href="?group=JSD&amp;sort=breakdown.JSD%28NB%2CPB%2BB%29&amp;order=best#board-heading"' in page
    # every column says its direction
    assert page.count('aria-label="lower is better"') == 6


@pytest.mark.parametrize(
    "language, tabs, direction, threshold, files",
    [
        (
            "ja",
            ["主な指標 (4)", "F1・適合率・再現率 (8)", "すべての指標 (26)"],
            "低いほど良い",
            "ゴールドラベルのしきい値 t",
            "DBDC の *.labels.json",
        ),
        (
            "zh-hans",
            ["主要指标 (4)", "F1、精确率、召回率 (8)", "全部指标 (26)"],
            "越低越好",
            "金标准标签阈值 t",
            "DBDC 的 *.labels.json",
        ),
    ],
)
def test_the_leaderboard_and_the_upload_form_speak_the_page_language(
    board, client, language, tabs, direction, threshold, files
):
    page = client.get(reverse("leaderboard", args=["board"]), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    shown = re.findall(r'class="tab(?: current)?"[^>]*>([^<]+)<', page)
    assert [t for t in shown if t in tabs] == tabs
    assert "metrics" not in " ".join(shown)
    assert f'aria-label="{direction}"' in page and "lower is better" not in page
    assert threshold in page and files in page and "Gold label threshold" not in page


def test_the_stc3_leaderboard_names_its_families_in_the_page_language(make_project, client):
    project = make_project("stc3", slug="board-stc3")
    lead_of(project, client)
    page = client.get(reverse("leaderboard", args=["board-stc3"]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    shown = re.findall(r'class="tab(?: current)?"[^>]*>([^<]+)<', page)
    assert [t.split(" (")[0] for t in shown] == ["主な指標", "品質", "ナゲット", "-log2 形式", "すべての指標"]
    assert "STC-3 / DialEval の提出 JSON。" in page


@pytest.mark.parametrize(
    "preset, present, absent",
    [
        ("dbdc", ["id_threshold", "id_strict", "id_files"], ["id_alpha", "Score the reorderings"]),
        ("stc3", ["id_alpha", "id_strict", "id_files"], ["id_threshold", "Score the reorderings"]),
        ("coherence", ["Score the reorderings"], ["id_files", "id_alpha", "id_threshold", "sig-heading"]),
        ("nlpcc", ['id="no-runs"', "have no system runs to score"], ["id_files", "id_alpha", 'id="leaderboard"']),
    ],
)
def test_the_runs_page_offers_only_the_options_of_the_preset(make_project, client, preset, present, absent):
    project = make_project(preset)
    lead_of(project, client)
    page = client.get(reverse("leaderboard", args=[project.slug])).content.decode()
    for text in present:
        assert text in page, text
    for text in absent:
        assert text not in page, text


@pytest.mark.eager_tasks(reason="the comparisons as the refresh job leaves them after the deletion")
def test_a_lead_deletes_a_run_and_the_comparisons_refresh(board, client, django_capture_on_commit_callbacks):
    per_dialogue = {f"d{i}": {"MSE(NB,PB,B)": i / 10} for i in range(12)}
    for run in Run.objects.filter(project=board, status="scored"):
        run.per_dialogue = {d: {m: v + len(run.name) / 100 for m, v in s.items()} for d, s in per_dialogue.items()}
        run.save()
    comparisons_refresh(project=board, trials=50)
    assert RunComparison.objects.filter(project=board, error="").count() == 1
    doomed = Run.objects.get(project=board, name="middle")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("run_delete", args=["board", doomed.pk]), follow=True)
    assert "Deleted run middle" in response.content.decode()
    assert not Run.objects.filter(pk=doomed.pk).exists()
    assert not RunComparison.objects.filter(project=board).exists()  # two scored runs left: nothing to compare
    annotator = user_make("board-ann")
    membership_add(project=board, user=annotator, role="annotator")
    client.force_login(annotator)
    other = Run.objects.get(project=board, name="best")
    assert client.post(reverse("run_delete", args=["board", other.pk])).status_code == 403
    assert Run.objects.filter(pk=other.pk).exists()


def test_when_significance_cannot_be_computed_the_page_says_why(board, client):
    # three scored runs with no dialogue in common
    for i, run in enumerate(Run.objects.filter(project=board, status="scored").order_by("name")):
        run.per_dialogue = {f"only-{i}": {"MSE(NB,PB,B)": 0.1 * i}}
        run.save()
    assert comparisons_refresh(project=board, trials=50) == 0
    page = client.get(reverse("leaderboard", args=["board"])).content.decode()
    assert "Not computed yet" not in page
    assert (
        "Cannot be computed: no dialogue has a &#x27;MSE(NB,PB,B)&#x27; score in every run; per-dialogue metrics: "
        "MSE(NB,PB,B)"
    ) in page


@pytest.mark.eager_tasks(reason="the dashboard once its first statistics job has run")
def test_the_dashboard_shows_the_labels_annotators_see_and_only_disputed_units(make_project, client, tmp_path):
    # turn 2 split three ways, turn 4 unanimous (NB)
    project = make_project("dbdc", slug="dash-bd")
    dialogues_import(project=project, paths=[write_json(tmp_path / "bd1.log.json", dbdc_dialogue("bd1"))])
    lead_of(project, client, "dash-lead")
    page = client.get(reverse("dashboard", args=["dash-bd"])).content.decode()
    values = page.split("values given (bars)", 1)[1].split("</table>", 1)[0]
    assert re.findall(r"<tr><td>([^<]+)</td>", values) == ["NB", "PB", "B"]
    disputed = page.split('id="disputed-table"', 1)[1].split("</table>", 1)[0]
    assert disputed.count("<tr><td>") == 1
    assert "<td>system turn 2</td>" in disputed and "NB (1), PB (1), B (1)" in disputed
    assert '"labels": ["NB", "PB", "B"]' in page  # the chart's labels
    side = client.get(reverse("dialogue_judgements", args=["dash-bd", project.dialogues.get().pk])).content.decode()
    assert "<td>system turn 4</td>" in side and "<td>NB</td>" in side and "<td>O</td>" not in side


@pytest.mark.eager_tasks(reason="the dashboard once its first statistics job has run")
def test_the_dashboard_names_dialogue_units_sorts_annotators_naturally_and_explains_uch(client):
    work = project_with_work("stc3", annotators=2, k=2, annotator_names=["ann10", "ann2"], lead_name="uch-lead")
    for annotator, quality in zip(work.annotators, ("2", "-2")):
        item = Assignment.objects.filter(annotator=annotator, dialogue__external_id="demo-stc-3").get()
        turns = sorted({p.utterance_block: p.speaker for p in item.dialogue.posts.all()}.items())
        nuggets = [Given("nugget", b, "CNUG0" if s == "customer" else "HNUG") for b, s in turns]
        given = [Given("A", 0, quality), Given("S", 0, "0"), Given("E", 0, "0"), *nuggets]
        judgements_save(assignment_id=item.pk, user=annotator, values=given, submit=True)
    client.force_login(work.lead)
    page = client.get(reverse("dashboard", args=[work.project.slug])).content.decode()
    annotators = page.split('id="annotator-table"', 1)[1].split("</table>", 1)[0]
    names = re.findall(r'<th scope="row">([^<]+)</th>', annotators)
    assert names.index("ann2") < names.index("ann10")
    disputed = page.split('id="disputed-table"', 1)[1].split("</table>", 1)[0]
    assert "<td>A</td><td>the dialogue</td>" in disputed and "-2 (1), 2 (1)" in disputed
    payload = ProjectStatistics.objects.get(project=work.project).payload
    assert "AUCH is UCH averaged over a dialogue's annotators." in page
    assert f'<strong id="auch-mean">{payload["uch"]["auch_mean"]:.4f}</strong>' in page
    # the correlation list is explained when it has rows, and left out when it has none
    assert ("Kendall's τ between AUCH and each rating" in page) == bool(payload["uch"]["kendall_tau"])
