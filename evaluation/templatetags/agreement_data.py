"""The dashboard's intervals beside each agreement figure, and its section on the data behind them."""

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext

from evaluation.selectors.agreement_data import agreement_blocks, cohen_pairs

register = template.Library()


def _number(x) -> str:
    return "–" if x is None else f"{float(x):.3f}"


def interval_text(interval) -> str:
    """``[low, high]`` of a payload interval to three decimals ("–" where undefined), "" without one.

    >>> interval_text({"ci": [0.3712, 0.45], "ci_method": "bootstrap"}), interval_text(None)
    ('[0.371, 0.450]', '')
    """
    if not isinstance(interval, dict) or "ci" not in interval:
        return ""
    low, high = interval["ci"]
    return f"[{_number(low)}, {_number(high)}]"


def method_text(interval) -> str:
    """How an interval was obtained, in the reader's language."""
    if not isinstance(interval, dict):
        return ""
    if interval.get("ci_method") == "jackknife":
        return gettext("95%% jackknife interval: fewer than 30 units, so each of the %(n)s was left out in turn") % {
            "n": interval.get("resamples", "")
        }
    return gettext("95%% bootstrap interval over units (%(n)s resamples)") % {"n": interval.get("resamples", "")}


@register.filter
def ci(interval):
    """A coefficient's interval beside its value: ``[0.371, 0.450]``, its method in the title, J if jackknifed."""
    text = interval_text(interval)
    if not text:
        return ""
    if interval.get("ci_method") == "jackknife":
        return format_html('<span class="ci" title="{}">{}<sup>J</sup></span>', method_text(interval), text)
    return format_html('<span class="ci" title="{}">{}</span>', method_text(interval), text)


@register.simple_tag
def pair_interval(kappa: dict, a: int, b: int) -> str:
    """The title of a Cohen's kappa cell: its interval, method and the units the pair shares."""
    if "ci_low" not in kappa or a == b:
        return ""
    interval = {"ci": [kappa["ci_low"][a][b], kappa["ci_high"][a][b]], "ci_method": kappa["ci_method"][a][b]}
    interval["resamples"] = kappa["resamples"] if interval["ci_method"] == "bootstrap" else kappa["shared"][a][b]
    return gettext("%(interval)s, %(method)s; %(shared)s units shared") % {
        "interval": interval_text(interval),
        "method": method_text(interval),
        "shared": kappa["shared"][a][b],
    }


@register.inclusion_tag("evaluation/dashboard/_agreement_data.html", takes_context=True)
def agreement_data_section(context, project, payload):
    """Every agreement block with what it is computed from, and the pairwise kappas with their intervals."""
    criteria = list(project.criteria.all())
    kappa = payload.get("reliability", {}).get("kappa", {})
    return {
        "project": project,
        "blocks": agreement_blocks(payload, criteria),
        "cohen": [(key, k, cohen_pairs(k)) for key, k in kappa.items() if "ci_low" in k],
        "LANGUAGE_CODE": context.get("LANGUAGE_CODE"),
    }
