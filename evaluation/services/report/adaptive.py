"""The methods paragraph's sentences on an adaptive budget: the items' range of annotators and where they stopped,
and for each label-gold criterion the stop rule with its delta and the rule's expected error rate, all taken from
the stored statistics' ``"adaptive"`` part (``evaluation.handout.services``)."""

from __future__ import annotations

from django.utils.translation import gettext

from evaluation.services.report.numbers import number


def adaptive_sentences(adaptive: dict | None) -> list[str]:
    """Nothing on a fixed-K project (or statistics computed before it had an adaptive budget)."""
    if not adaptive:
        return []
    states = adaptive.get("states") or {}
    parts = [
        gettext(
            "Items were collected under an adaptive budget: each got between %(min_k)s and %(max_k)s annotators, "
            "stopping once its gold was settled (%(stable)s items settled, %(at_maximum)s reached the maximum, "
            "%(open)s were still open)."
        )
        % {
            "min_k": adaptive["min_k"],
            "max_k": adaptive["max_k"],
            "stable": states.get("stable", 0),
            "at_maximum": states.get("at_maximum", 0),
            "open": states.get("open", 0),
        }
    ]
    for key, rule in (adaptive.get("label_gold") or {}).items():
        if rule["threshold"] > 0:
            majority = gettext(
                "the majority label (the most frequent value if its share reached %(threshold)s, else the scale's "
                "first value; ties to the value first in the scale)"
            ) % {"threshold": number(rule["threshold"])}
        else:
            majority = gettext("the majority label (ties to the value first in the scale)")
        parts.append(
            gettext(
                "The gold of %(key)s is %(majority)s; a unit stopped once the probability that its label differs "
                "from the label of %(max_k)s annotators was at most δ = %(delta)s, under a Dirichlet-multinomial "
                "model whose prior was fitted to the labels collected."
            )
            % {"key": key, "majority": majority, "max_k": adaptive["max_k"], "delta": f"{rule['delta']:g}"}
        )
        if rule["expected_error"] is None:
            parts.append(
                gettext("No unit of %(key)s had settled (%(units)s units).") % {"key": key, "units": rule["units"]}
            )
        else:
            parts.append(
                gettext(
                    "%(settled)s of %(units)s units of %(key)s settled; the rule's expected error rate among them "
                    "is %(error)s."
                )
                % {
                    "settled": rule["settled"],
                    "units": rule["units"],
                    "key": key,
                    "error": number(rule["expected_error"], 4),
                }
            )
    return parts
