"""Filters of the judge page: numbers with a fixed number of decimals, p-values, a figure with its interval."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext

from evaluation.judges.services.wording import alignment_name, reference_name, state_name

register = template.Library()
DASH = "–"


@register.filter
def fixed(value, digits: int = 3) -> str:
    """``0.12345|fixed:2`` -> "0.12"; a dash for None."""
    if value is None or value == "":
        return DASH
    return f"{float(value):.{int(digits)}f}"


@register.filter
def pvalue(value) -> str:
    """A p-value: three decimals, or "< 0.001"."""
    if value is None:
        return DASH
    return "< 0.001" if float(value) < 0.001 else f"{float(value):.3f}"


@register.filter
def figure(value) -> str:
    """An agreement figure ``{"value", "ci": [low, high]}`` as "0.512 [0.471, 0.550]"."""
    if not value or value.get("value") is None:
        return DASH
    low, high = value.get("ci") or (None, None)
    if low is None or high is None:
        return f"{value['value']:.3f}"
    return f"{value['value']:.3f} [{low:.3f}, {high:.3f}]"


@register.filter
def alignment_label(scoring: str) -> str:
    """An alt-test alignment's name: accuracy or negative RMSE (translated)."""
    return alignment_name(scoring)


@register.filter
def verdict_label(state: str) -> str:
    """A verdict's name: passed, failed, not informative here, not tested (translated)."""
    return state_name(state)


@register.filter
def reference_label(reference: dict) -> str:
    """A reference judge's name: always "PB", labels drawn at random, held-out annotator x (translated)."""
    return reference_name(reference)


@register.filter
def test_outcome(test: dict) -> str:
    """An alt-test's own outcome from its summary: not tested, passed or failed (translated)."""
    if not test or test.get("winning_rate") is None:
        return gettext("not tested")
    return gettext("passed") if test.get("passed") else gettext("failed")
