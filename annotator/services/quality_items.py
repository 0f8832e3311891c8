"""Control and training items: dialogues with expected answers, and mixing them into annotators' queues.

A lead marks a dialogue as a control item (mixed into every queue at the project's control rate,
in positions nobody can tell from ordinary items) or a training item (the qualification phase,
``annotator.services.qualification``), with expected answers per criterion and unit and, on
ordered scales, a tolerance in scale points. Answers are entered on a page (``quality_item_set``)
or taken from an upload in the project's own format with annotations (``quality_items_upload``:
the most frequent value of a unit, or on an ordered scale the median). Judgements of either kind
of item never count for gold data or agreement (``annotator.selectors.population``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db import transaction
from django.db.models import Count
from django.utils.translation import gettext, ngettext

from annotator import events
from annotator.importers import InputError
from annotator.models import (
    QUALITY_BOUNDS,
    Assignment,
    AssignmentStatus,
    Criterion,
    Dialogue,
    ExpectedAnswer,
    GoldCount,
    Judgement,
    Membership,
    Project,
    QualityItem,
    QualityItemKind,
    QualitySettings,
    Role,
    SourceFilter,
)
from annotator.selectors.structure import dialogue_shape
from annotator.services.imports import dialogues_import_upload
from annotator.units import UnitError, check_value, unit_speaker
from scoring.errors import N_

ORDERED_LEVELS = ("ordinal", "interval")


class QualityError(ValueError):
    """A quality-control request that cannot be carried out; ``problems`` says why (nothing changed)."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class Expected:
    criterion: str
    unit: int
    value: str
    tolerance: int = 0


def quality_settings_get(*, project: Project) -> QualitySettings:
    settings, _created = QualitySettings.objects.get_or_create(project=project)
    return settings


def quality_settings_update(
    *,
    project: Project,
    control_rate: float | None = None,
    default_tolerance: int | None = None,
    pass_mark: float | None = None,
    too_fast_seconds: int | None = None,
    source: str | None = None,
    control_accuracy_flag: float | None = None,
) -> QualitySettings:
    """Change some of a project's quality settings (the ones given); ``QualityError`` if any is outside its range
    (``QUALITY_BOUNDS``, the model's)."""
    given = {
        "control_rate": control_rate,
        "default_tolerance": default_tolerance,
        "pass_mark": pass_mark,
        "too_fast_seconds": too_fast_seconds,
        "control_accuracy_flag": control_accuracy_flag,
    }
    problems = [
        gettext("%(name)s must be between %(low)s and %(high)s, got %(value)s")
        % {"name": name, "low": QUALITY_BOUNDS[name][0], "high": QUALITY_BOUNDS[name][1], "value": value}
        for name, value in given.items()
        if value is not None and not QUALITY_BOUNDS[name][0] <= value <= QUALITY_BOUNDS[name][1]
    ]
    if source is not None and source not in SourceFilter.values:
        problems.append(
            gettext("source must be one of %(join)s, got %(source)s")
            % {"join": ", ".join(SourceFilter.values), "source": repr(source)}
        )
    if problems:
        raise QualityError(problems)
    with transaction.atomic():
        settings = QualitySettings.objects.select_for_update().get_or_create(project=project)[0]
        if source is not None and source != settings.source:
            events.population_changed(project_id=project.pk, reason="source")
        for name, value in (
            ("control_rate", control_rate),
            ("default_tolerance", default_tolerance),
            ("pass_mark", pass_mark),
            ("too_fast_seconds", too_fast_seconds),
            ("source", source),
            ("control_accuracy_flag", control_accuracy_flag),
        ):
            if value is not None:
                setattr(settings, name, value)
        settings.save()
        events.statistics_due(project_id=project.pk)  # the source, the flags' thresholds, the checks
    return settings


def _checked_answers(project: Project, dialogue: Dialogue, answers: list[Expected]) -> list[ExpectedAnswer]:
    criteria = {c.key: c for c in project.criteria.all()}
    shape = dialogue_shape(dialogue.pk)
    problems, rows, seen = [], [], set()
    for a in answers:
        criterion = criteria.get(a.criterion)
        if criterion is None:
            problems.append(gettext("unknown criterion %(criterion)s") % {"criterion": repr(a.criterion)})
            continue
        try:
            check_value(criterion, unit_speaker(criterion, a.unit, shape), a.value)
        except UnitError as exc:
            problems.append(str(exc))
            continue
        if a.tolerance and criterion.level not in ORDERED_LEVELS:
            problems.append(
                gettext("%(key)s is nominal: a tolerance applies to ordered scales only") % {"key": criterion.key}
            )
            continue
        if a.tolerance < 0:
            problems.append(gettext("the tolerance of %(key)s must not be negative") % {"key": criterion.key})
            continue
        if (a.criterion, a.unit) in seen:
            problems.append(
                gettext("%(criterion)s unit %(unit)s is given twice") % {"criterion": a.criterion, "unit": a.unit}
            )
            continue
        seen.add((a.criterion, a.unit))
        rows.append(ExpectedAnswer(criterion=criterion, unit=a.unit, value=a.value, tolerance=a.tolerance))
    if not rows and not problems:
        problems.append(gettext("give at least one expected answer"))
    if problems:
        raise QualityError(problems)
    return rows


@transaction.atomic
def quality_item_set(
    *, project: Project, dialogue_id: int, kind: str, answers: list[Expected], explanation: str = ""
) -> QualityItem:
    """Mark a dialogue of the project as a control or training item with these expected answers (replacing
    any earlier ones). Its judgements stop counting for gold data at once."""
    if kind not in QualityItemKind.values:
        raise QualityError([f"kind must be one of {', '.join(QualityItemKind.values)}, got {kind!r}"])
    dialogue = Dialogue.objects.filter(project=project, pk=dialogue_id).first()
    if dialogue is None:
        raise QualityError([f"no dialogue {dialogue_id} in project {project.slug}"])
    rows = _checked_answers(project, dialogue, answers)
    item, created = QualityItem.objects.update_or_create(
        dialogue=dialogue, defaults={"kind": kind, "explanation": explanation}
    )
    if created:
        events.population_changed(project_id=project.pk, reason="quality_items")
    item.answers.all().delete()
    for row in rows:
        row.item = item
    ExpectedAnswer.objects.bulk_create(rows)
    events.statistics_due(project_id=project.pk)
    return item


@transaction.atomic
def quality_item_remove(*, project: Project, dialogue_id: int) -> int:
    """Make a control or training item an ordinary dialogue again; unstarted assignments of it are withdrawn."""
    item = QualityItem.objects.filter(dialogue__project=project, dialogue_id=dialogue_id).first()
    if item is None:
        return 0
    Assignment.objects.filter(dialogue_id=dialogue_id, imported=False, status=AssignmentStatus.PENDING).delete()
    item.delete()
    events.population_changed(project_id=project.pk, reason="quality_items")
    events.statistics_due(project_id=project.pk)
    return 1


def consensus(values: list[int], counts: list[int], *, ordered: bool) -> int:
    """The expected answer from annotations: the median value index on an ordered scale (the lower one of
    two middles), else the most frequent value (ties: the earlier in the scale).

    >>> consensus([0, 1, 2], [3, 1, 2], ordered=False), consensus([0, 1, 2], [2, 1, 3], ordered=True)
    (0, 1)
    """
    order = np.argsort(values, kind="stable")
    v, c = np.asarray(values)[order], np.asarray(counts)[order]
    if ordered:
        cumulative = np.cumsum(c)
        return int(v[np.searchsorted(cumulative, (cumulative[-1] + 1) // 2)])
    return int(v[np.argmax(c)])


@transaction.atomic
def quality_items_upload(
    *,
    project: Project,
    uploaded,
    kind: str,
    fmt: str = "auto",
    tolerance: int | None = None,
    explanation: str = "",
) -> list[QualityItem]:
    """Import a file in the project's format whose dialogues carry annotations, as control or training items.

    Each unit's expected answer is the annotations' consensus (``consensus``); ``tolerance`` (default: the
    project's) applies to ordered criteria. The annotations themselves are not kept as judgements. All or
    nothing: an ``InputError`` names the file and dialogue.
    """
    if kind not in QualityItemKind.values:
        raise QualityError([f"kind must be one of {', '.join(QualityItemKind.values)}, got {kind!r}"])
    tolerance = quality_settings_get(project=project).default_tolerance if tolerance is None else tolerance
    before = set(project.dialogues.values_list("pk", flat=True))
    members_before = set(Membership.objects.filter(project=project, imported=True).values_list("pk", flat=True))
    dialogues_import_upload(project=project, uploaded=uploaded, fmt=fmt)
    new = list(project.dialogues.exclude(pk__in=before).order_by("position"))
    criteria = {c.pk: c for c in Criterion.objects.filter(project=project)}
    items = []
    for dialogue in new:
        given: dict[tuple[int, int], dict[str, int]] = {}
        for criterion_id, unit, value in Judgement.objects.filter(assignment__dialogue=dialogue).values_list(
            "criterion_id", "unit", "value"
        ):
            cell = given.setdefault((criterion_id, unit), {})
            cell[value] = cell.get(value, 0) + 1
        for criterion_id, unit, value, count in GoldCount.objects.filter(dialogue=dialogue).values_list(
            "criterion_id", "unit", "value", "count"
        ):
            cell = given.setdefault((criterion_id, unit), {})
            cell[value] = cell.get(value, 0) + count
        if not given:
            raise InputError(
                str(uploaded.name),
                N_("has no annotations to take the expected answers from"),
                record=dialogue.external_id,
            )
        answers = []
        for (criterion_id, unit), cell in sorted(given.items()):
            criterion = criteria[criterion_id]
            scale = list(dict.fromkeys(criterion.allowed_values()))
            ordered = criterion.level in ORDERED_LEVELS
            index = consensus([scale.index(v) for v in cell], list(cell.values()), ordered=ordered)
            answers.append(Expected(criterion.key, unit, scale[index], tolerance if ordered else 0))
        items.append(
            quality_item_set(
                project=project, dialogue_id=dialogue.pk, kind=kind, answers=answers, explanation=explanation
            )
        )
    # the annotations served as answers: they are not judgements of the project
    Assignment.objects.filter(dialogue__in=new, imported=True).delete()
    GoldCount.objects.filter(dialogue__in=new).delete()
    created = Membership.objects.filter(project=project, imported=True).exclude(pk__in=members_before)
    unused = created.annotate(n=Count("user__assignments")).filter(n=0)
    users = [m.user for m in unused.select_related("user")]
    unused.delete()
    for user in users:
        if not user.memberships.exists():
            user.delete()
    return items


@dataclass(frozen=True)
class MixReport:
    controls_added: int
    controls_withdrawn: int
    training_added: int
    controls_marked: int = 0  # dialogues marked as control items
    annotators: int = 0  # the annotators whose queues were looked at
    rate: float = 0.0  # the control rate the queues were filled to

    @property
    def summary(self) -> str:
        """What mixing did, in the lead's words, and why nothing was added when nothing was."""
        if self.controls_added:
            text = ngettext(
                "Added %(n)s control item to the annotators' queues.",
                "Added %(n)s control items to the annotators' queues.",
                self.controls_added,
            ) % {"n": self.controls_added}
        elif not self.controls_marked:
            text = gettext("No control item was added: no dialogue is marked as a control item yet.")
        elif self.rate <= 0:
            text = gettext(
                "No control item was added: the control rate is zero. Set the share of control items in the "
                "settings above, then mix again."
            )
        elif not self.annotators:
            text = gettext("No control item was added: the project has no active annotators of its own.")
        else:
            text = gettext(
                "No control item was added: every annotator already has the control items that a control rate of "
                "%(rate)s asks for beside their items."
            ) % {"rate": f"{self.rate:.0%}"}
        if self.controls_withdrawn:
            text += " " + ngettext(
                "Withdrew %(n)s unstarted control item beyond the rate.",
                "Withdrew %(n)s unstarted control items beyond the rate.",
                self.controls_withdrawn,
            ) % {"n": self.controls_withdrawn}
        if self.training_added:
            text += " " + ngettext("Added %(n)s training item.", "Added %(n)s training items.", self.training_added) % {
                "n": self.training_added
            }
        return text


def _annotators(project: Project) -> list[int]:
    return list(
        Membership.objects.filter(project=project, role=Role.ANNOTATOR, active=True, imported=False)
        .order_by("user_id")
        .values_list("user_id", flat=True)
    )


@transaction.atomic
def quality_assignments_create(*, project: Project, seed: int = 0, users: list[int] | None = None) -> MixReport:
    """Give every active annotator (or those of ``users``: a study's new participant) the training items, and
    control items at the project's control rate.

    An annotator with n ordinary items gets round(rate n / (1 - rate)) control items (so that controls make
    up ``rate`` of their queue), at most one of each control dialogue, the least used ones first. The new
    controls take uniformly random places among the annotator's unfinished items, which are then numbered
    afresh: nothing in the order or the page tells a control from an ordinary item. Controls beyond the rate
    (after the lead lowered it) are withdrawn while unstarted. Safe to run again: it adds only what is missing.
    """
    Project.objects.select_for_update().filter(pk=project.pk).first()
    rate = quality_settings_get(project=project).control_rate
    items = dict(QualityItem.objects.filter(dialogue__project=project).values_list("dialogue_id", "kind"))
    controls = [d for d, k in items.items() if k == QualityItemKind.CONTROL]
    training = sorted(d for d, k in items.items() if k == QualityItemKind.TRAINING)
    rng = np.random.default_rng(seed)
    usage = dict.fromkeys(controls, 0)
    for dialogue_id, n in (
        Assignment.objects.filter(dialogue_id__in=controls).values_list("dialogue_id").annotate(n=Count("pk"))
    ):
        usage[dialogue_id] = n
    added = withdrawn = trained = 0
    annotators = _annotators(project) if users is None else users
    for user_id in annotators:
        mine = list(
            Assignment.objects.filter(annotator_id=user_id, dialogue__project=project, imported=False)
            .order_by("queue_rank", "pk")
            .values_list("pk", "dialogue_id", "status")
        )
        have = {d for _pk, d, _s in mine}
        new_training = [Assignment(annotator_id=user_id, dialogue_id=d) for d in training if d not in have]
        Assignment.objects.bulk_create(new_training)
        trained += len(new_training)
        n_ordinary = sum(d not in items for _pk, d, _s in mine)
        mine_controls = [(pk, d, s) for pk, d, s in mine if items.get(d) == QualityItemKind.CONTROL]
        target = min(len(controls), round(rate * n_ordinary / (1 - rate))) if rate > 0 else 0
        if len(mine_controls) > target:
            spare = [pk for pk, _d, s in reversed(mine_controls) if s == AssignmentStatus.PENDING]
            drop = spare[: len(mine_controls) - target]
            Assignment.objects.filter(pk__in=drop).delete()
            withdrawn += len(drop)
            continue
        candidates = [d for d in controls if d not in have]
        tie = rng.random(len(candidates))
        chosen = [candidates[i] for i in sorted(range(len(candidates)), key=lambda i: (usage[candidates[i]], tie[i]))]
        chosen = chosen[: target - len(mine_controls)]
        if not chosen:
            continue
        for d in chosen:
            usage[d] += 1
        new = Assignment.objects.bulk_create(Assignment(annotator_id=user_id, dialogue_id=d) for d in chosen)
        added += len(new)
        pending = [pk for pk, d, s in mine if s != AssignmentStatus.SUBMITTED and items.get(d) != "training"]
        for a in new:
            pending.insert(int(rng.integers(0, len(pending) + 1)), a.pk)
        ranks = {pk: rank for rank, pk in enumerate(pending)}
        rows = list(Assignment.objects.filter(pk__in=ranks))
        for row in rows:
            row.queue_rank = ranks[row.pk]
        Assignment.objects.bulk_update(rows, ["queue_rank"], batch_size=2000)
    return MixReport(added, withdrawn, trained, len(controls), len(annotators), rate)
