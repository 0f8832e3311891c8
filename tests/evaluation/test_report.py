"""The study report (``manage.py report``, the report page): every section, every figure equal to the stored
statistics' with its interval or "interval not computed", LaTeX escaping, an inert HTML page, the CLI."""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotator.models import Judgement
from annotator.services.adjudication import adjudication_record
from annotator.services.exclusions import annotator_exclude
from annotator.studies.services import study_create
from annotator.wording import criterion_wording
from evaluation.models import ProjectStatistics, StatisticsJob
from evaluation.services.incremental import statistics_with_running_figures
from evaluation.services.report.content import project_report
from evaluation.services.report.methods import figure_text
from evaluation.services.report.numbers import number
from evaluation.services.report.render import breakable, md_escape, report_render, tex_escape
from evaluation.services.report.sheet import Figure
from evaluation.services.statistics import project_statistics, statistics_recompute
from tests.factories import project_with_work, submit_all

pytestmark = pytest.mark.django_db

BREAKDOWN = ["O", "T", "X"]
HOSTILE = "R&D 100% \\input{/etc/passwd} $x^2$ #1 a_b {c} ~d <script>alert(1)</script> [z]"


def _choose(assignment, key, unit):
    """Varied answers: agreement is neither perfect nor undefined."""
    values = assignment.dialogue.project.criteria.get(key=key).allowed_values()
    return values[(assignment.annotator_id * 7 + unit * 3 + assignment.dialogue_id) % len(values)]


@pytest.fixture
def dbdc_study():
    """A DBDC project with three annotators' varied judgements, an exclusion, an adjudication and a study,
    its statistics computed."""
    work = project_with_work("dbdc", slug="dbdc-report", annotators=4, k=4)
    for person in work.annotators:
        submit_all(person, work.project, _choose, seconds=20 + person.pk % 7)
    annotator_exclude(
        project=work.project, username=work.annotators[3].username, reason="clicked at random", excluded_by=work.lead
    )
    judgement = (
        Judgement.objects.filter(assignment__dialogue__project=work.project).select_related("assignment").first()
    )
    adjudication_record(
        project=work.project,
        dialogue_id=judgement.assignment.dialogue_id,
        criterion="breakdown",
        unit=judgement.unit,
        value="X",
        note="clearly a breakdown",
        adjudicator=work.lead,
    )
    study_create(project=work.project, name="Prolific pilot", items_per_participant=3, time_limit_minutes=45)
    statistics_recompute(project_id=work.project.pk, force=True)
    return work


def _answered(project) -> dict:
    """The stored payload with the running figures from the live state: what every reader answers."""
    return statistics_with_running_figures(project, ProjectStatistics.objects.get(project=project).payload)[0]


def test_report_has_every_section_with_the_payloads_numbers(dbdc_study):
    project = dbdc_study.project
    stored = ProjectStatistics.objects.get(project=project)
    payload = stored.payload
    report = project_report(project=project)
    assert report.statistics.status == "current"
    assert report.statistics.fingerprint == stored.fingerprint
    # the running figures from the live state (the stored payload leaves them out), equal to those computed here
    # from the judgements' counts; the rest (intervals, the data behind them, merges) from the stored payload
    assert "fleiss_kappa" not in payload["criteria"]["breakdown"]
    computed = project_statistics(project)["criteria"]["breakdown"]
    breakdown = statistics_with_running_figures(project, payload)[0]["criteria"]["breakdown"]
    for name in ("n_units", "fleiss_kappa", "randolph_kappa"):
        assert breakdown[name] == pytest.approx(computed[name], abs=1e-12)
    assert breakdown["krippendorff_alpha"] == pytest.approx(computed["krippendorff_alpha"], abs=1e-12)
    rows = {(r.kind, r.part): r for r in report.agreement}
    main = rows[("criterion", "")]
    assert main.fleiss.value == breakdown["fleiss_kappa"] and main.randolph.value == breakdown["randolph_kappa"]
    assert main.alpha_level == "ordinal" and main.n_units == breakdown["n_units"]
    assert main.alpha.value == breakdown["krippendorff_alpha"]["ordinal"]
    assert main.alpha_other["nominal"].value == breakdown["krippendorff_alpha"]["nominal"]
    # each interval as the payload gives it
    intervals = breakdown["intervals"]
    assert list(main.fleiss.ci) == intervals["fleiss_kappa"]["ci"]
    assert main.fleiss.ci_method == intervals["fleiss_kappa"]["ci_method"]
    assert list(main.alpha.ci) == intervals["krippendorff_alpha"]["ordinal"]["ci"]
    # and what they are computed from
    assert main.pairable_values == breakdown["pairable_values"]
    assert main.category_counts == list(zip(breakdown["categories"], breakdown["category_counts"], strict=True))
    assert {p for k, p in rows if k == "merge"} == set(breakdown["merges"]) == {"NB+PB,B", "NB,PB+B"}
    for name, sub in breakdown["merges"].items():
        assert rows[("merge", name)].fleiss.value == sub["fleiss_kappa"]
    assert report.work == payload["work"] and payload["work"]["items"] == project.dialogues.count()
    # annotators per item, counted here from the judgements of those not excluded
    counted = Judgement.objects.filter(assignment__dialogue__project=project, assignment__status="submitted").exclude(
        assignment__annotator=dbdc_study.annotators[3]
    )
    per_item = sorted(
        len({a for d, a in counted.values_list("assignment__dialogue", "assignment__annotator") if d == dialogue})
        for dialogue in set(counted.values_list("assignment__dialogue", flat=True))
    )
    assert payload["work"]["annotators_per_item"]["min"] == per_item[0]
    assert payload["work"]["annotators_per_item"]["max"] == per_item[-1]
    assert payload["work"]["annotators_per_item"]["n"] == len(per_item)
    assert report.exclusions[0].reason == "clicked at random"
    assert report.adjudications == 1 and report.adjudications_listed[0].note == "clearly a breakdown"
    assert [s.name for s in report.studies] == ["Prolific pilot"] and report.studies[0].time_limit_minutes == 45

    text = report_render(report, "md")
    for heading in (
        "What was evaluated",
        "Criteria, scales and their wording",
        "Who annotated",
        "Quality control",
        "Exclusions",
        "Adjudications",
        "Agreement",
        "Methods paragraph",
    ):
        assert f"## {heading}" in text, heading
    # the figures as printed, each from the payload, with the fingerprint and the time
    for value in (
        breakdown["fleiss_kappa"],
        breakdown["randolph_kappa"],
        breakdown["merges"]["NB+PB,B"]["fleiss_kappa"],
    ):
        assert number(value) in text
    assert stored.fingerprint in text and stored.computed_at.strftime("%Y-%m-%d %H:%M:%S") in text
    assert "Prolific pilot" in text and "clicked at random" in text
    # the wording in each language: DBDC's question in Japanese and Chinese from the catalogues
    criterion = project.criteria.get(key="breakdown")
    for language in ("ja", "zh-hans"):
        question = criterion_wording(project, criterion, language).question
        assert question != criterion.question and md_escape(question) in text


def test_figures_without_intervals_say_so_and_intervals_are_printed_when_present():
    assert figure_text(Figure(0.41234)) == "0.412 (interval not computed)"
    assert figure_text(Figure(0.41234, (0.39, 0.433), "bootstrap", 1000)) == "0.412 [0.390, 0.433]"
    main = ("bootstrap", 1000, None)
    assert figure_text(Figure(0.5, (0.1, 0.9), "jackknife", None), main) == "0.500 [0.100, 0.900; jackknife]"


def test_stale_and_missing_statistics_are_said_first(dbdc_study, make_project):
    project = dbdc_study.project
    stored = ProjectStatistics.objects.get(project=project)
    # a recomputation asked for after the statistics were last checked: they are stale
    StatisticsJob.objects.update_or_create(
        project=project, defaults={"requested_at": stored.checked_at + timedelta(seconds=1)}
    )
    report = project_report(project=project)
    assert report.statistics.status == "stale"
    text = report_render(report, "md")
    assert text.split("\n\n")[1].startswith("> **⚠ These statistics are out of date")
    empty = make_project("dbdc", slug="no-stats")
    missing = report_render(project_report(project=empty), "md")
    assert "> **⚠ No statistics have been computed" in missing


def _unescaped(tex: str, char: str) -> list[str]:
    return [line for line in tex.splitlines() if re.search(rf"(?<!\\){re.escape(char)}", line)]


def test_latex_escapes_hostile_names(dbdc_study):
    project = dbdc_study.project
    project.name = HOSTILE
    project.save()
    criterion = project.criteria.get(key="breakdown")
    criterion.label = "Break & down_100%"
    criterion.save()
    annotator_exclude(
        project=project, username=dbdc_study.annotators[2].username, reason=HOSTILE, excluded_by=dbdc_study.lead
    )
    tex = report_render(project_report(project=project), "tex")
    assert HOSTILE not in tex and tex_escape(breakable(HOSTILE)) in tex  # long runs may break
    assert r"R\&D 100\% \textbackslash{}input\{/etc/passwd\} \$x\textasciicircum{}2\$ \#1 a\_b" in tex
    body = tex.split(r"\begin{document}", 1)[1]
    for char in "$#%_^~":  # none left unescaped anywhere in the body
        assert not _unescaped(body, char), char
    # & only as the column separator of table rows, as many as the table has columns less one
    for line in body.splitlines():
        if _unescaped(line, "&"):
            assert line.rstrip().endswith("\\\\"), line
    assert body.count("{") - body.count("\\{") == body.count("}") - body.count("\\}")  # braces balance
    assert r"\begin{document}" in tex and tex.rstrip().endswith(r"\end{document}")


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.handlers += [name for name, _v in attrs if name.startswith("on")]


def test_html_report_and_page_are_inert(dbdc_study, client):
    project = dbdc_study.project
    hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    project.name = hostile
    project.save()
    annotator_exclude(
        project=project, username=dbdc_study.annotators[2].username, reason=hostile, excluded_by=dbdc_study.lead
    )
    html = report_render(project_report(project=project), "html")
    client.force_login(dbdc_study.lead)
    page = client.get(reverse("report", args=[project.slug]))
    assert page.status_code == 200
    for text in (html, page.content.decode()):
        tags = _Tags()
        tags.feed(text)
        assert "img" not in tags.tags and not tags.handlers
        assert "&lt;script&gt;alert(2)&lt;/script&gt;" in text
    scripts = re.findall(r"<script\b[^>]*>", page.content.decode())
    assert scripts and all(" src=" in tag for tag in scripts)  # only the page's own files, nothing inline


@pytest.mark.parametrize("fmt", ["md", "tex", "html"])
def test_cli_writes_each_format(dbdc_study, tmp_path, fmt, capsys):
    out = tmp_path / f"report.{fmt}"
    call_command("report", dbdc_study.project.slug, "--format", fmt, "--output", str(out), "--language", "ja")
    text = out.read_text(encoding="utf-8")
    fleiss = _answered(dbdc_study.project)["criteria"]["breakdown"]["fleiss_kappa"]
    assert number(fleiss) in text
    assert "方法" in text or "手法" in text  # the prose in Japanese
    call_command("report", dbdc_study.project.slug, "--format", fmt, "--language", "ja")
    made = "レポート作成"  # the one line that says when the report was made, to the second

    def without_time(t):
        return [line for line in t.splitlines() if made not in line]

    assert made in text and without_time(capsys.readouterr().out) == without_time(text)


@pytest.mark.eager_tasks(reason="the report's job the first download starts, run in the request that asks for it")
def test_downloads_for_leads_only(dbdc_study, client):
    project = dbdc_study.project
    client.force_login(dbdc_study.annotators[0])
    assert client.get(reverse("report_download", args=[project.slug, "md"])).status_code == 403
    client.force_login(dbdc_study.lead)
    response = client.get(reverse("report_download", args=[project.slug, "tex"]) + "?language=zh-hans")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/x-tex")
    assert "dbdc-report-report-zh-hans.tex" in response["Content-Disposition"]
    assert client.get(reverse("report_download", args=[project.slug, "pdf"])).status_code == 404


def _stated_numbers(payload, *extra) -> set[float]:
    """Every number stored in ``payload`` (recursively), and ``extra`` facts read from the project's tables."""
    found: set[float] = set(extra)

    def walk(x):
        if isinstance(x, bool):
            return
        if isinstance(x, int | float):
            found.add(float(x))
            found.add(float(x) * 100)  # shares stated as percentages (a confidence of 0.95 as 95%)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list | tuple):
            for v in x:
                walk(v)

    walk(payload)
    return found


def _untraced(text: str, numbers: set[float]) -> list[str]:
    """The numbers printed in ``text`` that no stored number gives at the printed precision."""
    out = []
    for token in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])", text):
        decimals = len(token.split(".")[1]) if "." in token else 0
        if not any(f"{v:.{decimals}f}" == token or (decimals == 0 and f"{v:g}" == token) for v in numbers):
            out.append(token)
    return out


def test_every_number_of_the_methods_paragraph_is_traced_to_the_stored_statistics(dbdc_study):
    """Each number the methods paragraph prints is a number of the stored payload (at the printed precision)
    or a count read from the project's tables (dialogues, systems, K asked, scale sizes, exclusions,
    adjudications); the fingerprint, time and library version are the stored statistics' own."""
    project = dbdc_study.project
    report = project_report(project=project)
    text = report.methods
    s = report.statistics
    for stamp in (s.fingerprint, s.computed_at.strftime("%Y-%m-%d %H:%M:%S UTC"), s.library_version):
        assert stamp in text
        text = text.replace(stamp, "")
    facts = [report.dialogues, report.k_asked, len(report.criteria), len(report.exclusions), report.adjudications]
    facts += [len(c.values) for c in report.criteria] + [n for _s, n in report.systems] + [len(report.systems)]
    assert _untraced(text, _stated_numbers(_answered(project), *facts)) == []
    # and the check can fail: a number that is stored nowhere is found
    assert _untraced(text + " 0.123456", _stated_numbers(_answered(project), *facts)) == ["0.123456"]


def test_methods_state_k_asked_and_obtained_per_unit(dbdc_study):
    project = dbdc_study.project
    work = ProjectStatistics.objects.get(project=project).payload["work"]
    # K obtained, counted here from the judgements that count (the excluded annotator's left out)
    counted = Judgement.objects.filter(assignment__dialogue__project=project, assignment__status="submitted").exclude(
        assignment__annotator=dbdc_study.annotators[3]
    )
    per_unit = Counter(counted.values_list("assignment__dialogue", "unit"))
    spread = work["annotators_per_unit"]["breakdown"]
    expected = (min(per_unit.values()), max(per_unit.values()), len(per_unit))
    assert (spread["min"], spread["max"], spread["n"]) == expected
    imported = set(counted.filter(assignment__imported=True).values_list("assignment__dialogue", flat=True))
    collected = set(counted.filter(assignment__imported=False).values_list("assignment__dialogue", flat=True))
    assert (work["items_imported"], work["items_collected"]) == (len(imported), len(collected)) and collected
    methods = project_report(project=project).methods
    median = number(spread["median"], 1 if spread["median"] % 1 else 0)
    assert (
        f"Each system turn was judged by a median of {median} annotators (range {spread['min']:.0f}–"
        f"{spread['max']:.0f}; breakdown)." in methods
    )
    assert f"The project asks for 4 annotators per dialogue; {len(collected)} dialogues were judged on the " in methods
    assert "was to be judged" not in methods
    assert "Who the annotators are, as the lead states it: Not stated" in report_render(
        project_report(project=project), "md"
    )
    project.annotators_are = "crowd"
    project.save()
    assert "Who the annotators are, as the lead states it: Crowd workers" in report_render(
        project_report(project=project), "md"
    )


def _nugget_choice(assignment, key, unit):
    """Customers agree on their nuggets, helpdesk posts are labelled at random-looking values."""
    values = assignment.dialogue.project.criteria.get(key=key).allowed_values()
    if key == "nugget":
        speaker = assignment.dialogue.posts.filter(utterance_block=unit).values_list("speaker", flat=True).first()
        own = [v for v in values if v.startswith("C" if speaker == "customer" else "H")]
        return own[0] if speaker == "customer" else own[(assignment.annotator_id + unit) % len(own)]
    return values[(assignment.annotator_id * 7 + unit * 3 + assignment.dialogue_id) % len(values)]


def test_speakers_labelled_differently_are_reported_apart_and_the_pooled_figure_beside_them():
    work = project_with_work("stc3", slug="stc3-speakers", annotators=3, k=3)
    for person in work.annotators:
        submit_all(person, work.project, _nugget_choice)
    statistics_recompute(project_id=work.project.pk, force=True)
    report = project_report(project=work.project)
    nugget = [r for r in report.agreement if r.criterion == "nugget"]
    assert [(r.kind, r.part) for r in nugget] == [("speaker", "customer"), ("speaker", "helpdesk"), ("pooled", "")]
    block = _answered(work.project)["criteria"]["nugget"]
    assert nugget[2].fleiss.value == block["fleiss_kappa"]
    assert nugget[0].fleiss.value == block["by_speaker"]["customer"]["fleiss_kappa"]
    methods = report.methods
    customer, pooled = methods.index("nugget, customer units ("), methods.index("Pooled over the speakers")
    assert customer < methods.index("nugget, helpdesk units (") < pooled
    assert f"nugget gives Fleiss' κ = {figure_text(nugget[2].fleiss)}" in methods
    assert "not as the criterion's agreement" in methods
    table = report_render(report, "md")
    assert table.index("nugget, customer units") < table.index("nugget, pooled over speakers")
    for key in "ASE":
        assert not any(r.kind == "pooled" for r in report.agreement if r.criterion == key)
    # every number of this paragraph too is a stored one
    s = report.statistics
    for stamp in (s.fingerprint, s.computed_at.strftime("%Y-%m-%d %H:%M:%S UTC"), s.library_version):
        methods = methods.replace(stamp, "")
    facts = [report.dialogues, report.k_asked, len(report.criteria), *(len(c.values) for c in report.criteria)]
    assert _untraced(methods, _stated_numbers(_answered(work.project), *facts)) == []


def _tex_tools() -> str:
    """The XeLaTeX command, or a skip naming the Debian package that is missing."""
    import shutil
    import subprocess

    xelatex = shutil.which("xelatex")
    if xelatex is None:
        pytest.skip("needs XeLaTeX: Debian's texlive-xetex (the docs' Study report page names it)")
    fonts = subprocess.run(["fc-list", ":lang=ja", "family"], capture_output=True, text=True).stdout
    if "Noto Serif CJK" not in fonts and "Noto Sans CJK" not in fonts:
        pytest.skip("needs a Noto CJK font: Debian's fonts-noto-cjk")
    return xelatex


@pytest.mark.parametrize("language", ["en", "ja", "zh-hans"])
def test_the_tex_compiles_with_xelatex_prints_japanese_and_chinese_and_keeps_to_the_margins(
    dbdc_study, tmp_path, language
):
    import subprocess

    xelatex = _tex_tools()
    report = project_report(project=dbdc_study.project, language=language)
    tex = report_render(report, "tex")
    criterion = dbdc_study.project.criteria.get(key="breakdown")
    japanese = criterion_wording(dbdc_study.project, criterion, "ja").question
    chinese = criterion_wording(dbdc_study.project, criterion, "zh-hans").question
    assert re.search(r"[\u4e00-\u9fff]", japanese) and tex_escape(japanese) in tex and tex_escape(chinese) in tex
    (tmp_path / "report.tex").write_text(tex, encoding="utf-8")
    done = subprocess.run(
        [xelatex, "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (tmp_path / "report.log").read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, log[-3000:]
    assert (tmp_path / "report.pdf").stat().st_size > 10_000
    assert "Missing character" not in log  # every kanji, kana and hanzi printed, none as a box
    assert "Overfull \\hbox" not in log  # no line and no table runs into the margin
