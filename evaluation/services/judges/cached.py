"""Judge reports kept in the cache, keyed by everything they depend on: the judge's labels, the humans'
judgements (their fingerprint) and epsilon. The report is computed on demand (seconds on STC-3); the
cache spares the judge page and the comparison of judges from computing it again on every visit."""

from __future__ import annotations

from django.core.cache import cache
from django.db.models import Count, Max

from annotator.models import Judge, JudgeLabel, Project
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.judges.report import judge_report

TIMEOUT = 24 * 3600


def _key(project: Project, judge: Judge, epsilon: float) -> str:
    labels = JudgeLabel.objects.filter(judge=judge).aggregate(n=Count("pk"), last=Max("pk"))
    return f"judge-report:{judge.pk}:{labels['n']}:{labels['last']}:{judgements_fingerprint(project)}:{epsilon:g}"


def judge_report_cached(project: Project, judge: Judge, epsilon: float) -> dict:
    """``judge_report``, from the cache when nothing it depends on changed."""
    key = _key(project, judge, epsilon)
    report = cache.get(key)
    if report is None:
        report = judge_report(project, judge, epsilon=epsilon)
        cache.set(key, report, TIMEOUT)
    return report


def judges_comparison(project: Project, judges, epsilon: float) -> list[dict]:
    """One row per judge: the alt-test, rho, and per criterion kappa (the comparison table)."""
    rows = []
    for judge in judges:
        report = judge_report_cached(project, judge, epsilon)
        kappas = [
            a["kappa"]["value"] for a in report["agreement"].values() if a["kappa"] and a["kappa"]["value"] is not None
        ]
        ratios = [r["width_ratio"] for r in report["ppi"]["systems"] if r["width_ratio"] is not None]
        rows.append(
            {
                "name": judge.name,
                "winning_rate": report["alt_test"]["winning_rate"],
                "passed": report["alt_test"]["passed"],
                "rho": report["alt_test"]["rho"],
                "mean_kappa": sum(kappas) / len(kappas) if kappas else None,
                "median_width_ratio": sorted(ratios)[len(ratios) // 2] if ratios else None,
            }
        )
    return rows
