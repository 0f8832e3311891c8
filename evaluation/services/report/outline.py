"""The report laid out as plain blocks (headings, paragraphs, lists, tables), in the active language: the one
layout the Markdown, LaTeX and HTML renderers share, each escaping the text (user text included) its way."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext, ngettext

from evaluation.services.report.methods import figure_text, main_method, row_name, unit_name
from evaluation.services.report.numbers import number, seconds, utc_text
from evaluation.services.report.sheet import Report


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass(frozen=True)
class Paragraph:
    text: str
    kind: str = ""  # "warning" (stale or missing statistics), "methods", "quote" or plain


@dataclass(frozen=True)
class Items:
    items: list[str]


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: list[list[str]]
    anchor: str = ""


Block = Heading | Paragraph | Items | Table


def _yes_no(flag: bool) -> str:
    return gettext("yes") if flag else gettext("no")


def _share(x) -> str:
    return "–" if x is None else f"{x * 100:.1f}%"


def _count(x) -> str:
    return number(x, 0 if x % 1 == 0 else 1)


def _value_label(value: str, label: str) -> str:
    """A scale value as annotators saw it: its label, the stored value first where the label does not start
    with it (``O = NB: not a breakdown``, but ``-2: very poor``)."""
    return label if label == value or label.startswith(f"{value}:") else f"{value} = {label}"


def _spread(spread: dict | None, *, counts: bool = False) -> str:
    if not spread:
        return gettext("not in these statistics")
    fmt = _count if counts else seconds
    return gettext("median %(median)s (IQR %(q1)s–%(q3)s, range %(min)s–%(max)s, n = %(n)s)") % {
        "median": fmt(spread["median"]),
        "q1": fmt(spread["q1"]),
        "q3": fmt(spread["q3"]),
        "min": fmt(spread["min"]),
        "max": fmt(spread["max"]),
        "n": spread["n"],
    }


def report_blocks(report: Report, status: str) -> list[Block]:
    """The report's blocks: status first (a warning when stale or missing), then the datasheet's sections,
    the agreement table and the methods paragraph."""
    blocks: list[Block] = [
        Heading(1, gettext("Study report: %(project)s") % {"project": report.project_name}),
        Paragraph(status, "warning" if report.statistics.status != "current" else ""),
        Paragraph(
            gettext("Report made %(when)s; project %(slug)s, %(preset)s scheme.")
            % {"when": utc_text(report.generated_at), "slug": report.slug, "preset": report.preset}
        ),
    ]
    blocks += _evaluated(report) + _criteria(report) + _annotators(report) + _quality(report)
    blocks += _exclusions(report) + _adjudications(report) + _agreement(report)
    blocks.append(Heading(2, gettext("Methods paragraph"), "methods"))
    if report.methods:
        blocks.append(Paragraph(report.methods, "methods"))
    else:
        blocks.append(Paragraph(gettext("No figures without statistics."), "warning"))
    return blocks


def _evaluated(report: Report) -> list[Block]:
    work = report.work or {}
    items = [
        gettext("Dialogues in the project (control and training items apart): %(n)s") % {"n": report.dialogues},
        gettext("Dialogues with judgements counted in the statistics: %(n)s")
        % {"n": work["items"] if "items" in work else gettext("not in these statistics")},
    ]
    if report.dialogue_languages:
        items.append(
            gettext("Languages of the dialogues: %(list)s")
            % {"list": ", ".join(f"{lang or gettext('not given')} ({n})" for lang, n in report.dialogue_languages)}
        )
    if report.systems:
        items.append(
            gettext("Systems whose dialogues were judged (named by %(field)s): %(list)s")
            % {
                "field": "; ".join(report.system_fields) or gettext("the source"),
                "list": ", ".join(f"{s} ({n})" for s, n in report.systems),
            }
        )
    if report.runs:
        items.append(gettext("Runs scored against the gold data: %(list)s") % {"list": ", ".join(report.runs)})
    blocks: list[Block] = [Heading(2, gettext("What was evaluated"), "evaluated"), Items(items)]
    blocks.append(Heading(3, gettext("Guidelines shown to annotators")))
    for language, text, as_english in report.guidelines:
        if as_english:
            blocks.append(Paragraph(gettext("%(language)s: as in English.") % {"language": language}))
        elif text.strip():
            blocks.append(Paragraph(f"{language}: {text.strip()}", "quote"))
        else:
            blocks.append(Paragraph(gettext("%(language)s: none.") % {"language": language}))
    return blocks


def _criteria(report: Report) -> list[Block]:
    blocks: list[Block] = [Heading(2, gettext("Criteria, scales and their wording"), "criteria")]
    for c in report.criteria:
        blocks.append(Heading(3, c.key))
        facts = [
            gettext("Unit judged: %(unit)s") % {"unit": c.unit},
            gettext("Level of measurement: %(level)s") % {"level": c.level},
            gettext("Scale: %(values)s") % {"values": ", ".join(c.values)},
        ]
        if c.speaker:
            facts.append(gettext("Only units by: %(speaker)s") % {"speaker": c.speaker})
        blocks.append(Items(facts))
        rows = []
        for w in c.wordings:
            if w.as_english:
                rows.append([w.language_name, gettext("as in English"), "", ""])
            else:
                rows.append(
                    [w.language_name, w.label, w.question, "; ".join(_value_label(v, lab) for v, lab in w.values)]
                )
        blocks.append(
            Table([gettext("Language"), gettext("Label"), gettext("Question"), gettext("Values shown")], rows)
        )
    return blocks


def _annotators(report: Report) -> list[Block]:
    work = report.work or {}
    m = report.members
    items = [
        gettext("Annotators asked per dialogue (K, for work collected here): %(k)s") % {"k": report.k_asked},
        gettext("Annotators per judged dialogue: %(spread)s")
        % {"spread": _spread(work.get("annotators_per_item"), counts=True)},
    ]
    items += [
        gettext("Annotators per %(unit)s, %(criterion)s: %(spread)s")
        % {"unit": unit_name(c.unit), "criterion": c.key, "spread": _spread(spread, counts=True)}
        for c in report.criteria
        if (spread := (work.get("annotators_per_unit") or {}).get(c.key))
    ]
    if "items_imported" in work:
        items.append(
            gettext("Dialogues whose judgements were imported: %(imported)s; judged here: %(collected)s")
            % {"imported": work["items_imported"], "collected": work["items_collected"]}
        )
    items += [
        gettext("Time per item in seconds: %(spread)s") % {"spread": _spread(work.get("seconds_per_item"))},
        gettext("Project members: annotators %(annotators)s, adjudicators %(adjudicators)s, leads %(leads)s")
        % {"annotators": report.own_annotators, "adjudicators": m.get("adjudicator", 0), "leads": m.get("lead", 0)},
        gettext("Annotators imported with the source collection's judgements: %(n)s")
        % {"n": report.imported_annotators},
        gettext("Crowd study participants: %(n)s") % {"n": report.study_participants},
        gettext("Who the annotators are, as the lead states it: %(who)s") % {"who": report.annotators_are},
    ]
    if report.labels:
        items.append(
            gettext("Counted in the statistics: %(judgements)s judgements by %(annotators)s annotators")
            % {"judgements": report.labels.get("judgements", 0), "annotators": report.labels.get("annotators", 0)}
        )
    blocks: list[Block] = [Heading(2, gettext("Who annotated"), "annotators"), Items(items)]
    if report.studies:
        blocks.append(Heading(3, gettext("Crowd studies")))
        blocks.append(
            Table(
                [
                    gettext("Study"),
                    gettext("Open"),
                    gettext("Items per participant"),
                    gettext("Time limit (minutes)"),
                    gettext("Participants"),
                    gettext("Consented"),
                    gettext("Consent text"),
                ],
                [
                    [
                        s.name,
                        _yes_no(s.is_open),
                        str(s.items_per_participant),
                        str(s.time_limit_minutes),
                        str(s.participants),
                        str(s.consented),
                        _yes_no(s.has_consent_text),
                    ]
                    for s in report.studies
                ],
            )
        )
    return blocks


def _quality(report: Report) -> list[Block]:
    q = report.quality
    items = [
        gettext("Whose judgements count: %(source)s") % {"source": q.source},
        gettext("Control items: %(n)s (share of each queue: %(rate)s)")
        % {"n": q.control_items, "rate": _share(q.control_rate)},
        gettext("Training items (qualification): %(n)s, pass mark %(mark)s")
        % {"n": q.training_items, "mark": _share(q.pass_mark)},
        gettext("Qualified: %(passed)s passed, %(admitted)s let in by a lead")
        % {"passed": q.qualified_passed, "admitted": q.qualified_admitted},
    ]
    if report.has_statistics:
        items += [
            gettext("Control answers: %(answers)s by %(annotators)s annotators, accuracy %(accuracy)s")
            % {
                "answers": q.control_answers,
                "annotators": q.annotators_with_controls,
                "accuracy": _share(q.control_accuracy),
            },
            gettext("Items submitted faster than %(seconds)s s: %(n)s of %(of)s timed")
            % {"seconds": q.too_fast_seconds, "n": q.too_fast_items, "of": q.timed_items},
            ngettext(
                "Annotators flagged by the reliability checks: %(n)s",
                "Annotators flagged by the reliability checks: %(n)s",
                len(q.flagged),
            )
            % {"n": len(q.flagged)},
        ]
        if q.adjudicated_units:
            items.append(
                gettext("Judgements agreeing with the adjudicated label: %(agree)s of %(units)s")
                % {"agree": q.adjudicated_agree, "units": q.adjudicated_units}
            )
    blocks: list[Block] = [Heading(2, gettext("Quality control"), "quality"), Items(items)]
    if q.flagged:
        blocks.append(
            Table([gettext("Annotator"), gettext("Flags")], [[name, "; ".join(flags)] for name, flags in q.flagged])
        )
    return blocks


def _exclusions(report: Report) -> list[Block]:
    blocks: list[Block] = [Heading(2, gettext("Exclusions"), "exclusions")]
    if not report.exclusions:
        return blocks + [Paragraph(gettext("No annotator was excluded."))]
    rows = [[e.annotator, e.reason, utc_text(e.at)] for e in report.exclusions]
    return blocks + [Table([gettext("Annotator"), gettext("Reason"), gettext("Excluded")], rows)]


def _adjudications(report: Report) -> list[Block]:
    blocks: list[Block] = [Heading(2, gettext("Adjudications"), "adjudications")]
    if not report.adjudications:
        return blocks + [Paragraph(gettext("No unit was adjudicated."))]
    blocks.append(
        Items(
            [
                gettext("%(criterion)s: adjudicated units %(n)s") % {"criterion": k, "n": n}
                for k, n in report.adjudications_by_criterion
            ]
        )
    )
    if report.adjudications > len(report.adjudications_listed):
        blocks.append(
            Paragraph(
                gettext("The first %(listed)s of %(n)s:")
                % {"listed": len(report.adjudications_listed), "n": report.adjudications}
            )
        )
    rows = [[a.criterion, a.dialogue, str(a.unit), a.value, a.adjudicator, a.note] for a in report.adjudications_listed]
    header = [
        gettext("Criterion"),
        gettext("Dialogue"),
        gettext("Unit"),
        gettext("Label"),
        gettext("By"),
        gettext("Note"),
    ]
    return blocks + [Table(header, rows)]


def _agreement(report: Report) -> list[Block]:
    blocks: list[Block] = [Heading(2, gettext("Agreement"), "agreement")]
    if not report.agreement:
        return blocks + [
            Paragraph(
                gettext("No agreement figures in these statistics."), "warning" if not report.has_statistics else ""
            )
        ]
    main = main_method(report)
    header = [
        gettext("Criterion"),
        gettext("Units"),
        gettext("Annotators"),
        gettext("Fleiss' κ"),
        gettext("Randolph's κ"),
        gettext("Krippendorff's α"),
        gettext("2+ agree"),
        gettext("All agree"),
    ]
    rows = [
        [
            row_name(r),
            str(r.n_units),
            str(r.n_annotators),
            figure_text(r.fleiss, main),
            figure_text(r.randolph, main),
            f"{figure_text(r.alpha, main)} ({r.alpha_level})",
            number(r.agree_2plus),
            number(r.agree_all),
        ]
        for r in report.agreement
    ]
    blocks.append(Table(header, rows, "agreement-table"))
    traced = [
        gettext("%(name)s: %(pairable)s pairable values; labels per category: %(counts)s")
        % {
            "name": row_name(r),
            "pairable": r.pairable_values,
            "counts": ", ".join(f"{category} {n}" for category, n in r.category_counts),
        }
        for r in report.agreement
        if r.pairable_values is not None
    ]
    if traced:
        blocks.append(Heading(3, gettext("What each agreement figure is computed from")))
        blocks.append(Items(traced))
    other = [
        f"{row_name(r)}: α ({level}) = {figure_text(f, main)}"
        for r in report.agreement
        for level, f in r.alpha_other.items()
    ]
    if other:
        blocks.append(Heading(3, gettext("Krippendorff's α at the other levels")))
        blocks.append(Items(other))
    return blocks
