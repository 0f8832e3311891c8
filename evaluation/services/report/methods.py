"""The report's methods paragraph, ready to paste: the design, the annotators and every agreement figure with
its interval, in the active language, each number taken from the stored statistics the report carries."""

from __future__ import annotations

from collections import Counter

from django.utils.translation import gettext, ngettext

from evaluation.services.report.adaptive import adaptive_sentences
from evaluation.services.report.numbers import number, seconds, utc_text
from evaluation.services.report.sheet import AgreementRow, Figure, Report


def _figures(report: Report) -> list[Figure]:
    return [f for row in report.agreement for f in (row.fleiss, row.randolph, row.alpha, *row.alpha_other.values())]


def main_method(report: Report) -> tuple[str, int | None, float | None] | None:
    """The interval method most figures carry (method, resamples, confidence), or None when none has one."""
    seen = Counter((f.ci_method, f.resamples, f.confidence) for f in _figures(report) if f.ci_method)
    return seen.most_common(1)[0][0] if seen else None


def figure_text(f: Figure, main: tuple | None = None) -> str:
    """``0.412 [0.390, 0.433]``, the method named when it is not the usual one (a jackknife where units were
    few); ``0.412 (interval not computed)`` without one."""
    if f.value is None:
        return number(None)
    if not f.ci_method:
        return gettext("%(value)s (interval not computed)") % {"value": number(f.value)}
    if f.ci is None:
        return gettext("%(value)s (interval undefined)") % {"value": number(f.value)}
    text = f"{number(f.value)} [{number(f.ci[0])}, {number(f.ci[1])}]"
    if main is not None and f.ci_method != main[0]:
        text = f"{number(f.value)} [{number(f.ci[0])}, {number(f.ci[1])}; {f.ci_method}]"
    return text


def row_name(row: AgreementRow) -> str:
    """The row's name: the criterion, ``nugget, customer`` for a speaker's units, ``breakdown, merged
    (NB+PB,B)`` for a merge."""
    if row.kind == "speaker":
        return gettext("%(criterion)s, %(speaker)s units") % {"criterion": row.criterion, "speaker": row.part}
    if row.kind == "merge":
        return gettext("%(criterion)s, merged (%(merge)s)") % {"criterion": row.criterion, "merge": row.part}
    return row.criterion


def _agreement_sentence(row: AgreementRow, main) -> str:
    return gettext(
        "%(name)s (%(units)s units, %(annotators)s annotators): Fleiss' κ = %(fleiss)s, Randolph's κ = "
        "%(randolph)s, Krippendorff's α (%(level)s) = %(alpha)s."
    ) % {
        "name": row_name(row),
        "units": row.n_units,
        "annotators": row.n_annotators,
        "fleiss": figure_text(row.fleiss, main),
        "randolph": figure_text(row.randolph, main),
        "level": row.alpha_level,
        "alpha": figure_text(row.alpha, main),
    }


def _interval_sentence(report: Report, main) -> str:
    """How the intervals were computed, the jackknife's switch said where the statistics give it."""
    if main is None:
        return gettext("No intervals were computed for these statistics.")
    method, resamples, confidence = main
    share = f"{confidence * 100:g}%" if confidence else "95%"
    below = next((f.jackknife_below for f in _figures(report) if f.jackknife_below), None)
    if method == "bootstrap" and resamples and below:
        text = gettext(
            "Brackets give %(share)s intervals (bootstrap over units, %(resamples)s resamples; a jackknife over "
            "units, named beside the interval, where a figure rests on fewer than %(below)s units)."
        ) % {"share": share, "resamples": resamples, "below": below}
    elif method == "bootstrap" and resamples:
        text = gettext("Brackets give %(share)s intervals (bootstrap over units, %(resamples)s resamples).") % {
            "share": share,
            "resamples": resamples,
        }
    else:
        text = gettext("Brackets give %(share)s intervals (%(method)s over units).") % {
            "share": share,
            "method": method,
        }
    if any(f.value is not None and not f.ci_method for f in _figures(report)):
        text += " " + gettext("Figures marked as such have no interval in these statistics.")
    return text


def methods_paragraph(report: Report) -> str:
    """The methods paragraph of ``report`` in the active language (empty without statistics)."""
    if not report.has_statistics:
        return ""
    work, labels = report.work or {}, report.labels or {}
    parts = []
    items = work.get("items", report.dialogues)
    parts.append(
        gettext("We report a human evaluation of %(items)s dialogues (project %(project)s, %(preset)s scheme).")
        % {"items": items, "project": report.project_name, "preset": report.preset}
    )
    criteria = "; ".join(
        gettext("%(key)s (%(unit)s, %(level)s scale of %(n)s values)")
        % {"key": c.key, "unit": c.unit, "level": c.level, "n": len(c.values)}
        for c in report.criteria
    )
    parts.append(
        ngettext(
            "Annotators judged %(n)s criterion: %(list)s.",
            "Annotators judged %(n)s criteria: %(list)s.",
            len(report.criteria),
        )
        % {"n": len(report.criteria), "list": criteria}
    )
    if labels:
        parts.append(
            gettext("The statistics count %(judgements)s judgements by %(annotators)s annotators.")
            % {"judgements": labels.get("judgements", 0), "annotators": labels.get("annotators", 0)}
        )
        if labels.get("imported_counts"):
            parts.append(
                gettext("A further %(n)s labels were imported as counts whose annotators are unknown.")
                % {"n": labels["imported_counts"]}
            )
    per_item = work.get("annotators_per_item")
    if per_item:
        parts.append(
            gettext(
                "Each dialogue was to be judged by %(k)s annotators; the items judged had a median of %(median)s "
                "(range %(min)s–%(max)s)."
            )
            % {
                "k": work.get("annotators_per_item_asked", report.k_asked),
                "median": number(per_item["median"], 1 if per_item["median"] % 1 else 0),
                "min": number(per_item["min"], 0),
                "max": number(per_item["max"], 0),
            }
        )
    parts.extend(adaptive_sentences(report.adaptive))
    timing = work.get("seconds_per_item")
    if timing:
        parts.append(
            gettext(
                "Annotators spent a median of %(median)s s per item (interquartile range %(q1)s–%(q3)s s, "
                "%(n)s items timed)."
            )
            % {
                "median": seconds(timing["median"]),
                "q1": seconds(timing["q1"]),
                "q3": seconds(timing["q3"]),
                "n": timing["n"],
            }
        )
    main = main_method(report)
    if report.agreement:
        parts.append(
            gettext(
                "Agreement was measured over the units with at least two judgements with Fleiss' κ, Randolph's "
                "free-marginal κ and Krippendorff's α at each criterion's level of measurement."
            )
        )
        parts.extend(_agreement_sentence(row, main) for row in report.agreement)
        parts.append(_interval_sentence(report, main))
    quality = report.quality
    if quality.control_answers:
        parts.append(
            gettext(
                "Control items with known answers were mixed into the queues: %(annotators)s annotators answered "
                "%(answers)s of their questions with an accuracy of %(accuracy)s."
            )
            % {
                "annotators": quality.annotators_with_controls,
                "answers": quality.control_answers,
                "accuracy": number(quality.control_accuracy),
            }
        )
    if report.exclusions:
        parts.append(
            ngettext(
                "%(n)s annotator was excluded, with the reason given in the datasheet.",
                "%(n)s annotators were excluded, with the reasons given in the datasheet.",
                len(report.exclusions),
            )
            % {"n": len(report.exclusions)}
        )
    if report.adjudications:
        parts.append(
            ngettext(
                "%(n)s disputed unit was adjudicated.", "%(n)s disputed units were adjudicated.", report.adjudications
            )
            % {"n": report.adjudications}
        )
    s = report.statistics
    parts.append(
        gettext(
            "All figures were computed %(when)s from the judgements with fingerprint %(fingerprint)s (library "
            "%(version)s)."
        )
        % {"when": utc_text(s.computed_at), "fingerprint": s.fingerprint, "version": s.library_version}
    )
    return " ".join(parts)
