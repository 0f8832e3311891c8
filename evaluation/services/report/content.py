"""The study report's content: a HEDS-style datasheet of a project and its agreement figures, as one object.

Belz and Thomson's Human Evaluation Datasheet (HEDS 3.0) asks what was evaluated, with which criteria and
wording, on which scales, by whom and how they were recruited, how many judged each item and for how long,
which quality control was used and with what result, which annotators were excluded and why, and how
disagreements were resolved. ``project_report`` gathers that from the project (its settings, criteria,
members, studies, quality items, exclusions, adjudications) and every figure from the **stored** statistics
payload, stated with its fingerprint and time; stale or missing statistics are said, never recomputed here.
The renderers (``markdown``, ``latex``, ``html``) only lay this object out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from django.db.models import Count, Q
from django.utils import timezone, translation
from django.utils.translation import gettext

from annotator.importers.systems import dialogue_system, system_field
from annotator.models import (
    Adjudication,
    AnnotatorExclusion,
    Membership,
    Participant,
    Project,
    Qualification,
    QualityItem,
    QualityItemKind,
    QualitySettings,
    Role,
)
from annotator.selectors.population import gold_dialogues
from annotator.wording import WORDING_LANGUAGES, criterion_wording, guidelines_text, scheme_label
from evaluation.models import Run, RunStatus
from evaluation.selectors.dashboard import freshness
from evaluation.services.incremental import live_state_peek, statistics_with_running_figures
from evaluation.services.report.methods import methods_paragraph
from evaluation.services.report.numbers import utc_text
from evaluation.services.report.sheet import (
    AdjudicationRow,
    AgreementRow,
    CriterionSheet,
    Exclusion,
    Figure,
    QualitySheet,
    Report,
    StatisticsState,
    StudySheet,
    Wording,
)

REPORT_LANGUAGES = ("en", *WORDING_LANGUAGES)
LANGUAGE_NAMES = {"en": "English", "ja": "日本語", "zh-hans": "简体中文"}
ADJUDICATIONS_LISTED = 50  # the report lists this many adjudications; the count covers all


def _with_interval(value, interval: dict | None, common: dict) -> Figure:
    """``value`` with its interval (``interval``: ``ci``, ``ci_method``, ``resamples``; ``common``: the block's
    ``confidence`` and ``jackknife_below``) when the statistics carry one."""
    if not isinstance(interval, dict) or not interval.get("ci"):
        return Figure(value)
    lo, hi = interval["ci"]
    return Figure(
        value,
        None if lo is None or hi is None else (float(lo), float(hi)),
        str(interval.get("ci_method") or ""),
        interval.get("resamples"),
        common.get("confidence"),
        common.get("jackknife_below"),
    )


def agreement_row(criterion: str, kind: str, part: str, block: dict, level: str) -> AgreementRow:
    """One agreement block of the payload (a criterion's, a speaker's or a merge's) with its intervals."""
    intervals = block.get("intervals") or {}
    alphas = block.get("krippendorff_alpha") or {}
    alpha_intervals = intervals.get("krippendorff_alpha") or {}
    level = level if level in alphas else "nominal"
    return AgreementRow(
        criterion=criterion,
        kind=kind,
        part=part,
        n_units=block.get("n_units", 0),
        n_annotators=block.get("n_annotators", 0),
        fleiss=_with_interval(block.get("fleiss_kappa"), intervals.get("fleiss_kappa"), intervals),
        randolph=_with_interval(block.get("randolph_kappa"), intervals.get("randolph_kappa"), intervals),
        alpha_level=level,
        alpha=_with_interval(alphas.get(level), alpha_intervals.get(level), intervals),
        alpha_other={
            lv: _with_interval(a, alpha_intervals.get(lv), intervals) for lv, a in alphas.items() if lv != level
        },
        agree_2plus=block.get("agree_2plus"),
        agree_all=block.get("agree_all"),
        pairable_values=block.get("pairable_values"),
        category_counts=list(zip(block.get("categories") or [], block.get("category_counts") or [], strict=False)),
    )


def agreement_rows(payload: dict, criteria) -> list[AgreementRow]:
    """The payload's agreement blocks in the project's order of criteria: each criterion, then its merges
    (PostgreSQL's jsonb does not keep key order). A criterion whose scale depends on the speaker (STC-3's
    nuggets: the customer's labels are not the helpdesk's) gives each speaker's figures first and the figure
    pooled over speakers after them (kind ``pooled``): pooling units whose label sets differ lets the speaker
    alone predict part of every label, so the pooled figure is read beside the per-speaker ones, never as the
    criterion's."""
    rows = []
    for c in criteria:
        block = (payload.get("criteria") or {}).get(c.key)
        if block is None:
            continue
        by_speaker = block.get("by_speaker") or {}
        speakers = [speaker for speaker in c.speakers if speaker in by_speaker]
        if speakers:
            rows += [agreement_row(c.key, "speaker", sp, by_speaker[sp], "nominal") for sp in speakers]
            rows.append(agreement_row(c.key, "pooled", "", block, c.level))
        else:
            rows.append(agreement_row(c.key, "criterion", "", block, c.level))
        for name, sub in (block.get("merges") or {}).items():
            rows.append(agreement_row(c.key, "merge", name, sub, "nominal"))
    return rows


def _wordings(project: Project, criterion) -> list[Wording]:
    english = criterion_wording(project, criterion, "en")
    out = []
    for language in REPORT_LANGUAGES:
        w = criterion_wording(project, criterion, language)
        same = language != "en" and (w.label, w.question, w.values) == (english.label, english.question, english.values)
        out.append(
            Wording(
                language,
                LANGUAGE_NAMES[language],
                w.label,
                w.question,
                [(v, w.values.get(v, v)) for v in dict.fromkeys(criterion.allowed_values())],
                same,
            )
        )
    return out


def _quality(project: Project, payload: dict) -> QualitySheet:
    settings = QualitySettings.objects.filter(project=project).first() or QualitySettings(project=project)
    kinds = Counter(QualityItem.objects.filter(dialogue__project=project).values_list("kind", flat=True))
    qualified = Qualification.objects.filter(project=project).aggregate(
        passed=Count("pk", filter=Q(passed_at__isnull=False)),
        admitted=Count("pk", filter=Q(passed_at__isnull=True, admitted_at__isnull=False)),
    )
    reliability = payload.get("reliability") or {}
    annotators = reliability.get("annotators") or {}
    answers = correct = with_controls = too_fast = timed = units = agree = 0
    flagged = []
    for name, r in sorted(annotators.items()):
        if r.get("control"):
            with_controls += 1
            answers += r["control"]["answers"]
            correct += r["control"]["accuracy"] * r["control"]["answers"]
        if r.get("timing"):
            too_fast += r["timing"]["too_fast"]
            timed += r["timing"]["items"]
        if r.get("adjudicated"):
            units += r["adjudicated"]["units"]
            agree += r["adjudicated"]["agree"]
        if r.get("flags"):
            flagged.append((name, list(r["flags"])))
    return QualitySheet(
        control_rate=settings.control_rate,
        control_items=kinds.get(QualityItemKind.CONTROL, 0),
        training_items=kinds.get(QualityItemKind.TRAINING, 0),
        pass_mark=settings.pass_mark,
        too_fast_seconds=(reliability.get("thresholds") or {}).get("too_fast_seconds", settings.too_fast_seconds),
        source=(payload.get("population") or {}).get("source", settings.source),
        qualified_passed=qualified["passed"],
        qualified_admitted=qualified["admitted"],
        control_answers=answers,
        control_accuracy=correct / answers if answers else None,
        annotators_with_controls=with_controls,
        too_fast_items=too_fast,
        timed_items=timed,
        flagged=flagged,
        adjudicated_units=units,
        adjudicated_agree=agree,
    )


def _statistics_state(project: Project) -> tuple[StatisticsState, dict]:
    state = freshness(project=project)
    stored = state["stored"]
    if stored is None:
        return StatisticsState("missing"), {}
    return (
        StatisticsState(
            "current" if state["up_to_date"] else "stale",
            stored.fingerprint,
            stored.computed_at,
            stored.library_version,
            stored.n_judgements,
            state["new_items"],
        ),
        statistics_with_running_figures(project, stored.payload, state=live_state_peek(project))[0],
    )


def project_report(*, project: Project, language: str = "en") -> Report:
    """The study report of ``project`` with its prose in ``language`` (``en``, ``ja`` or ``zh-hans``)."""
    with translation.override(language):
        return _report(project, language)


def _report(project: Project, language: str) -> Report:
    statistics, payload = _statistics_state(project)
    criteria = list(project.criteria.all())
    spec_guidelines = []
    english_guidelines = guidelines_text(project, "en")
    for lang in REPORT_LANGUAGES:
        text = guidelines_text(project, lang)
        spec_guidelines.append((LANGUAGE_NAMES[lang], text, lang != "en" and text == english_guidelines))
    dialogues = gold_dialogues(project)
    languages = Counter(dialogues.values_list("language", flat=True))
    systems, system_fields = Counter(), Counter()
    for meta in dialogues.values_list("source_meta", flat=True).iterator():
        system = dialogue_system(meta)
        if system:
            systems[system] += 1
            system_fields[system_field(meta) or ""] += 1
    members = Counter(
        Membership.objects.filter(project=project, active=True, imported=False).values_list("role", flat=True)
    )
    imported = Membership.objects.filter(project=project, role=Role.ANNOTATOR, imported=True).count()
    participants = Participant.objects.filter(study__project=project).count()
    studies = [
        StudySheet(
            s.name,
            s.is_open,
            s.items_per_participant,
            s.time_limit_minutes,
            s.n_participants,
            s.n_consented,
            bool(s.consent_text.strip()),
        )
        for s in project.studies.annotate(
            n_participants=Count("participants"),
            n_consented=Count("participants", filter=Q(participants__consented_at__isnull=False)),
        ).order_by("pk")
    ]
    exclusions = [
        Exclusion(username, reason, at)
        for username, reason, at in AnnotatorExclusion.objects.filter(project=project)
        .order_by("created_at", "pk")
        .values_list("user__username", "reason", "created_at")
    ]
    adjudications = Adjudication.objects.filter(dialogue__project=project)
    by_criterion = Counter(dict(adjudications.values_list("criterion__key").annotate(n=Count("pk"))))
    listed = [
        AdjudicationRow(key, dialogue, unit, value, note, adjudicator or "")
        for key, dialogue, unit, value, note, adjudicator in adjudications.order_by(
            "criterion__position", "dialogue__position", "unit"
        ).values_list("criterion__key", "dialogue__external_id", "unit", "value", "note", "adjudicator__username")[
            :ADJUDICATIONS_LISTED
        ]
    ]
    rows = agreement_rows(payload, criteria)
    report = Report(
        project_name=project.name,
        slug=project.slug,
        preset=scheme_label(project, language),
        language=language,
        generated_at=timezone.now(),
        statistics=statistics,
        guidelines=spec_guidelines,
        dialogues=dialogues.count(),
        dialogue_languages=sorted(languages.items(), key=lambda kv: (-kv[1], kv[0])),
        systems=sorted(systems.items(), key=lambda kv: (-kv[1], kv[0])),
        system_fields=[gettext(f) for f, _n in system_fields.most_common() if f],
        runs=list(
            Run.objects.filter(project=project, status=RunStatus.SCORED).order_by("name").values_list("name", flat=True)
        ),
        criteria=[
            CriterionSheet(
                c.key, c.unit, c.level, c.speaker, list(dict.fromkeys(c.allowed_values())), _wordings(project, c)
            )
            for c in criteria
        ],
        k_asked=project.annotators_per_dialogue,
        annotators_are=str(project.get_annotators_are_display()),
        members={role: members.get(role, 0) for role in Role.values},
        imported_annotators=imported,
        own_annotators=Membership.objects.filter(
            project=project, role=Role.ANNOTATOR, active=True, imported=False, user__study_participant__isnull=True
        ).count(),
        study_participants=participants,
        studies=studies,
        work=payload.get("work"),
        labels=payload.get("labels"),
        population=payload.get("population"),
        quality=_quality(project, payload),
        exclusions=exclusions,
        adjudications=sum(by_criterion.values()),
        adjudications_by_criterion=[(c.key, by_criterion[c.key]) for c in criteria if by_criterion.get(c.key)],
        adjudications_listed=listed,
        agreement=rows,
        methods="",
        merges=sorted({r.part for r in rows if r.kind == "merge"}),
        adaptive=payload.get("adaptive"),
    )
    return _with_methods(report)


def _with_methods(report: Report) -> Report:
    return replace(report, methods=methods_paragraph(report))


def status_text(report: Report) -> str:
    """What the report says about its statistics, first thing (translated)."""
    s = report.statistics
    if s.status == "missing":
        return gettext(
            "No statistics have been computed for this project: the report has no figures. Recompute them on "
            "the dashboard (or with manage.py stats --async) and make the report again."
        )
    when = utc_text(s.computed_at)
    if s.status == "stale":
        return gettext(
            "These statistics are out of date: the judgements changed after they were computed (%(when)s, "
            "fingerprint %(fingerprint)s). Recompute them and make the report again before citing any figure."
        ) % {"when": when, "fingerprint": s.fingerprint}
    return gettext(
        "Every figure below comes from the statistics computed %(when)s from %(n)s judgements (fingerprint "
        "%(fingerprint)s, library %(version)s), which are up to date."
    ) % {"when": when, "n": s.n_judgements, "fingerprint": s.fingerprint, "version": s.library_version}
