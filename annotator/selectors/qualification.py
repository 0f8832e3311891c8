"""Qualification: a project with training items opens its real queue to an annotator who reached the pass mark.

An annotator's score is the share of the expected answers of their submitted training items they got
right (within the tolerance on ordered scales). Once every training item is submitted and the score
reaches the lead's pass mark, the annotator is qualified (recorded, so that later changes of the
training set do not lock them out again). A lead can let anyone in by hand. The pages and the API
ask ``may_open`` before showing or saving a real item.

The reads; the writes (a pass recorded, a lead admitting someone) are ``annotator.services.qualification``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_lazy

from annotator.models import (
    Assignment,
    AssignmentStatus,
    Membership,
    Project,
    Qualification,
    QualityItem,
    QualityItemKind,
    QualitySettings,
    Role,
)
from annotator.selectors.quality import checked_answers
from annotator.selectors.structure import dialogue_shape
from annotator.units import unit_names
from annotator.wording import criterion_wording


class QualificationState:
    NOT_REQUIRED = "not_required"  # no training items
    TRAINING = "training"  # training items left to submit
    FAILED = "failed"  # all submitted, below the pass mark
    PASSED = "passed"
    ADMITTED = "admitted"  # let in by a lead


# the states as the lead's page names them (the codes are the API's)
STATE_LABELS = {
    QualificationState.NOT_REQUIRED: gettext_lazy("no training required"),
    QualificationState.TRAINING: gettext_lazy("in training"),
    QualificationState.FAILED: gettext_lazy("below the pass mark"),
    QualificationState.PASSED: gettext_lazy("passed"),
    QualificationState.ADMITTED: gettext_lazy("let in by hand"),
}

OPEN_STATES = (QualificationState.NOT_REQUIRED, QualificationState.PASSED, QualificationState.ADMITTED)


@dataclass(frozen=True)
class QualificationStatus:
    state: str
    score: float | None  # share of expected answers right, over the submitted training items
    submitted: int
    total: int
    pass_mark: float
    admitted_by: str = ""
    note: str = ""

    @property
    def open(self) -> bool:
        return self.state in OPEN_STATES


def _pass_mark(project: Project) -> float:
    mark = QualitySettings.objects.filter(project=project).values_list("pass_mark", flat=True).first()
    return 0.8 if mark is None else mark


def qualification_status(*, project: Project, user) -> QualificationStatus:
    """Where ``user`` stands: admitted, passed (recorded, or reached now), failed, still training, or not
    required. Reads only; ``services.qualification.qualification_pass_record`` records a pass."""
    total = QualityItem.objects.filter(dialogue__project=project, kind=QualityItemKind.TRAINING).count()
    pass_mark = _pass_mark(project)
    record = Qualification.objects.filter(project=project, user=user).select_related("admitted_by").first()
    if record is not None and record.admitted_at is not None:
        who = record.admitted_by.username if record.admitted_by else ""
        return QualificationStatus(QualificationState.ADMITTED, record.score, 0, total, pass_mark, who, record.note)
    if total == 0:
        return QualificationStatus(QualificationState.NOT_REQUIRED, None, 0, 0, pass_mark)
    if record is not None and record.passed_at is not None:
        return QualificationStatus(QualificationState.PASSED, record.score, total, total, pass_mark)
    answers = checked_answers(project=project, kind=QualityItemKind.TRAINING, user=user)
    submitted = len(set(answers.dialogue.tolist()))
    score = float(answers.correct.mean()) if len(answers.correct) else None
    if submitted < total:
        return QualificationStatus(QualificationState.TRAINING, score, submitted, total, pass_mark)
    if score is not None and score >= pass_mark:
        return QualificationStatus(QualificationState.PASSED, score, submitted, total, pass_mark)
    return QualificationStatus(QualificationState.FAILED, score, submitted, total, pass_mark)


def is_training(assignment: Assignment) -> bool:
    return QualityItem.objects.filter(dialogue_id=assignment.dialogue_id, kind=QualityItemKind.TRAINING).exists()


def may_open(*, assignment: Assignment, user) -> bool:
    """Whether ``user`` may open (see, save) their ``assignment``: training items always; real items (ordinary
    and control alike, so that a control is not given away) once qualified. Two small queries while open."""
    project_id = assignment.dialogue.project_id
    if not QualityItem.objects.filter(dialogue__project_id=project_id, kind=QualityItemKind.TRAINING).exists():
        return True
    if QualityItem.objects.filter(dialogue_id=assignment.dialogue_id, kind=QualityItemKind.TRAINING).exists():
        return True
    if (
        Qualification.objects.filter(project_id=project_id, user=user)
        .exclude(passed_at=None, admitted_at=None)
        .exists()
    ):
        return True
    return qualification_status(project=Project.objects.get(pk=project_id), user=user).open


def qualification_results(*, project: Project) -> list[dict]:
    """Every own annotator's qualification, for the lead: username, state, score, items submitted."""
    members = (
        Membership.objects.filter(project=project, role=Role.ANNOTATOR, imported=False, active=True)
        .select_related("user")
        .order_by("user__username")
    )
    out = []
    for m in members:
        status = qualification_status(project=project, user=m.user)
        out.append(
            {
                "annotator": m.user.username,
                "state": status.state,
                "state_label": STATE_LABELS.get(status.state, status.state),
                "score": status.score,
                "submitted": status.submitted,
                "total": status.total,
                "pass_mark": status.pass_mark,
                "admitted_by": status.admitted_by,
                "note": status.note,
            }
        )
    return out


def training_feedback(*, assignment: Assignment) -> dict:
    """For a submitted training item: each expected answer beside the annotator's own, and the lead's
    explanation. Empty answers while the item is not submitted (nothing is given away before)."""
    item = QualityItem.objects.filter(dialogue_id=assignment.dialogue_id, kind=QualityItemKind.TRAINING).first()
    if item is None:
        raise ValueError("not a training item")
    project = assignment.dialogue.project
    rows = []
    if assignment.status == AssignmentStatus.SUBMITTED:
        answers = checked_answers(project=project, kind=QualityItemKind.TRAINING, user=assignment.annotator)
        criteria = {c.key: c for c in project.criteria.all()}
        wordings = {key: criterion_wording(project, c) for key, c in criteria.items()}
        labels = {key: wordings[key].values for key in criteria}
        shape = dialogue_shape(assignment.dialogue_id)
        names: dict[str, dict[int, str]] = {}  # the units named as the item's page numbers them: "turn 1 (customer)"
        for i in range(len(answers.correct)):
            if answers.assignment[i] != assignment.pk:
                continue
            key = answers.criterion[i]
            kind = criteria[key].unit
            if kind not in names:
                names[kind] = unit_names(kind, shape.speakers, shape.blocks, assignment.shown_order)
            rows.append(
                {
                    "criterion": key,
                    "label": wordings[key].label,
                    "unit": int(answers.unit[i]),
                    "unit_name": names[kind].get(int(answers.unit[i]), str(int(answers.unit[i]) + 1)),
                    "expected": answers.expected[i],
                    "expected_label": labels[key].get(answers.expected[i], answers.expected[i]),
                    "given": answers.given[i],
                    "given_label": labels[key].get(answers.given[i] or "", answers.given[i] or ""),
                    "tolerance": int(answers.tolerance[i]),
                    "correct": bool(answers.correct[i]),
                }
            )
    return {
        "submitted": assignment.status == AssignmentStatus.SUBMITTED,
        "explanation": item.explanation if assignment.status == AssignmentStatus.SUBMITTED else "",
        "answers": rows,
        "qualification": qualification_status(project=project, user=assignment.annotator),
    }
