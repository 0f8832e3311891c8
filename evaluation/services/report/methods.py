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
    """The row's name: the criterion, ``nugget, customer units`` for a speaker's units, ``nugget, pooled over
    speakers`` beside them, ``breakdown, merged (NB+PB,B)`` for a merge."""
    if row.kind == "pooled":
        return gettext("%(criterion)s, pooled over speakers") % {"criterion": row.criterion}
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


def _pooled_sentence(row: AgreementRow, main) -> str:
    """The figure pooled over speakers whose label sets differ, said beside the per-speaker ones."""
    return gettext(
        "Pooled over the speakers, whose label sets differ (so that the speaker alone predicts part of each "
        "label), %(criterion)s gives Fleiss' κ = %(fleiss)s, Randolph's κ = %(randolph)s and Krippendorff's α "
        "(%(level)s) = %(alpha)s over %(units)s units; we report it beside the per-speaker figures, not as the "
        "criterion's agreement."
    ) % {
        "criterion": row.criterion,
        "fleiss": figure_text(row.fleiss, main),
        "randolph": figure_text(row.randolph, main),
        "level": row.alpha_level,
        "alpha": figure_text(row.alpha, main),
        "units": row.n_units,
    }


def unit_name(unit: str) -> str:
    """The unit a criterion judges, in words (translated)."""
    return {
        "dialogue": gettext("dialogue"),
        "post": gettext("post"),
        "turn": gettext("utterance block"),
        "system_turn": gettext("system turn"),
        "reply": gettext("reply"),
    }.get(unit, unit)


def _k_text(spread: dict, unit: str, criteria: list[str]) -> str:
    """``Each dialogue was judged by 19 annotators (A, S, E).``, with a median and range where units differ."""
    values = {"unit": unit_name(unit), "criteria": ", ".join(criteria)}
    if spread["min"] == spread["max"]:
        return gettext("Each %(unit)s was judged by %(k)s annotators (%(criteria)s).") % {
            **values,
            "k": number(spread["min"], 0),
        }
    return gettext(
        "Each %(unit)s was judged by a median of %(median)s annotators (range %(min)s–%(max)s; %(criteria)s)."
    ) % {
        **values,
        "median": number(spread["median"], 1 if spread["median"] % 1 else 0),
        "min": number(spread["min"], 0),
        "max": number(spread["max"], 0),
    }


def annotators_sentences(report: Report) -> list[str]:
    """K as obtained, per unit of each criterion (the stored ``work.annotators_per_unit``), and K as asked:
    the project's K applies to the dialogues collected here; a collection imported with its judgements was
    annotated elsewhere, by as many annotators as its files hold."""
    work = report.work or {}
    per_unit = work.get("annotators_per_unit")
    out = []
    if per_unit:
        groups: dict[tuple, list[str]] = {}
        for c in report.criteria:
            spread = per_unit.get(c.key)
            if spread:
                key = (c.unit, spread["min"], spread["max"], spread["median"])
                groups.setdefault(key, []).append(c.key)
        out += [_k_text(per_unit[keys[0]], unit, keys) for (unit, *_figures), keys in groups.items()]
    elif work.get("annotators_per_item"):
        spread = work["annotators_per_item"]
        out.append(
            gettext("The dialogues judged had a median of %(median)s annotators each (range %(min)s–%(max)s).")
            % {
                "median": number(spread["median"], 1 if spread["median"] % 1 else 0),
                "min": number(spread["min"], 0),
                "max": number(spread["max"], 0),
            }
        )
    k = work.get("annotators_per_item_asked", report.k_asked)
    imported, collected = work.get("items_imported"), work.get("items_collected")
    if imported is None:
        out.append(gettext("The project asks for %(k)s annotators per dialogue.") % {"k": k})
        return out
    if collected:
        out.append(
            ngettext(
                "The project asks for %(k)s annotators per dialogue; %(n)s dialogue was judged on the platform.",
                "The project asks for %(k)s annotators per dialogue; %(n)s dialogues were judged on the platform.",
                collected,
            )
            % {"k": k, "n": collected}
        )
    if imported:
        out.append(
            ngettext(
                "The judgements of %(n)s dialogue were imported with the source collection, annotated there by "
                "as many annotators as its files hold (the project's setting of %(k)s applies only to work "
                "collected here).",
                "The judgements of %(n)s dialogues were imported with the source collection, annotated there by "
                "as many annotators as its files hold (the project's setting of %(k)s applies only to work "
                "collected here).",
                imported,
            )
            % {"n": imported, "k": k}
        )
    return out


def systems_sentence(report: Report) -> str:
    """The systems whose dialogues were judged and the field that names them; nothing where none is named."""
    if not report.systems:
        return ""
    listed = ", ".join(f"{system} ({n})" for system, n in report.systems)
    return ngettext(
        "The dialogues come from %(n)s system, named by %(field)s: %(list)s.",
        "The dialogues come from %(n)s systems, named by %(field)s: %(list)s.",
        len(report.systems),
    ) % {"n": len(report.systems), "field": "; ".join(report.system_fields) or gettext("the source"), "list": listed}


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
    parts.extend(annotators_sentences(report))
    parts.extend(adaptive_sentences(report.adaptive))
    systems = systems_sentence(report)
    if systems:
        parts.append(systems)
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
        parts.extend(
            _pooled_sentence(row, main) if row.kind == "pooled" else _agreement_sentence(row, main)
            for row in report.agreement
        )
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
