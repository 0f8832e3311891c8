"""Judge reports kept in the cache, keyed by everything they depend on: the judge's labels, the humans'
judgements (their fingerprint), the margin given by hand or who the project says annotated. The report is
computed on demand (seconds on STC-3); the cache spares the judge page and the comparison of judges from
computing it again on every visit."""

from __future__ import annotations

from django.core.cache import cache
from django.db.models import Count, Max

from annotator.models import Judge, JudgeLabel, Project
from evaluation.judges.services.report import judge_report
from evaluation.selectors.fingerprint import judgements_fingerprint

TIMEOUT = 24 * 3600


def _key(project: Project, judge: Judge, epsilon: float | None) -> str:
    labels = JudgeLabel.objects.filter(judge=judge).aggregate(n=Count("pk"), last=Max("pk"))
    margin = f"{epsilon:g}" if epsilon is not None else f"who:{project.annotators_are or '-'}"
    return f"judge-report:{judge.pk}:{labels['n']}:{labels['last']}:{judgements_fingerprint(project)}:{margin}"


def judge_report_cached(project: Project, judge: Judge, epsilon: float | None = None) -> dict:
    """``judge_report``, from the cache when nothing it depends on changed (``epsilon`` None: from who
    annotated)."""
    key = _key(project, judge, epsilon)
    report = cache.get(key)
    if report is None:
        report = judge_report(project, judge, epsilon=epsilon)
        cache.set(key, report, TIMEOUT)
    return report


def _row(name: str, test: dict, mean_kappa, width_ratio, *, reference: str = "") -> dict:
    return {
        "name": name,
        "reference": reference,
        "verdict": test.get("verdict"),
        "winning_rate": test.get("winning_rate"),
        "passed": test.get("passed"),
        "rho": test.get("rho"),
        "mean_kappa": mean_kappa,
        "median_width_ratio": width_ratio,
    }


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def judges_comparison(project: Project, judges, epsilon: float | None = None, *, references: dict | None = None):
    """One row per judge: the verdict, the alt-test, rho, mean kappa and median PPI width ratio; then the
    reference judges of ``references`` (a report: the page's own; default the first judge's), the best trivial
    answer per criterion and a held-out human, so that a judge's figures are read beside what knowing
    nothing, or one human, gets."""
    rows = []
    for judge in judges:
        report = judge_report_cached(project, judge, epsilon)
        kappas = [a["kappa"]["value"] for a in report["agreement"].values() if a["kappa"]]
        test = report["alt_test"]
        rows.append(_row(judge.name, test, _mean(kappas), report["ppi"].get("median_width_ratio")))
        if references is None:
            references = report
    if references is None:
        return rows
    refs, widths = references["alt_test"].get("references") or {}, references["ppi"].get("references") or {}
    for role in ("best_trivial", "held_out"):
        combined = refs.get(role)
        if not combined:
            continue
        labels = "; ".join(f"{key} {r['label']}" for key, r in combined["criteria"].items())
        kappa = _mean(r.get("kappa") for r in combined["criteria"].values())
        rows.append(_row(labels, {**combined, "verdict": None}, kappa, widths.get(role), reference=role))
    return rows
