"""What the annotation page shows: the dialogue in display order with the questions on each part."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotator.models import Assignment, Criterion, Reordering, Unit
from annotator.presets import PRESETS
from annotator.selectors.structure import DialogueShape
from annotator.services.units import POST_UNITS, required_units


@dataclass
class Question:
    """One criterion asked of one unit: the form field name and the choices that apply."""

    criterion: Criterion
    unit: int
    name: str
    choices: list[dict]
    value: str | None
    widget: str  # "radio" or "select"
    incremental: bool = False  # part of the turn-by-turn sequence


@dataclass
class PostView:
    position: int
    text: str
    questions: list[Question] = field(default_factory=list)
    reveal: int = 0


@dataclass
class BlockView:
    index: int
    speaker: str
    posts: list[PostView]
    questions: list[Question] = field(default_factory=list)
    reveal: int = 0


@dataclass
class AnnotationPage:
    assignment: Assignment
    blocks: list[BlockView]
    dialogue_questions: list[Question]
    incremental_steps: int
    reorder_turns: list[dict] | None
    reorder_value: list[int] | None
    first_speaker: str


def _widget(criterion: Criterion) -> str:
    return (
        "select"
        if criterion.level == "nominal" and len(criterion.values) > 3 and criterion.unit != Unit.REPLY
        else "radio"
    )


def annotation_page(assignment: Assignment) -> AnnotationPage:
    """Build the page of one assignment (a handful of queries, whatever the dialogue's length)."""
    dialogue = assignment.dialogue
    project = dialogue.project
    spec = PRESETS[project.preset]
    criteria = list(project.criteria.all())
    posts = list(
        dialogue.posts.order_by("position").values_list(
            "position", "speaker", "text", "utterance_block", "source_annotated"
        )
    )
    shape = DialogueShape.of_posts((p[1], p[3], p[4]) for p in posts)
    stored = {(k, u): v for k, u, v in assignment.judgements.values_list("criterion__key", "unit", "value")}
    incremental = spec.incremental

    def question(criterion: Criterion, unit: int, speaker: str) -> Question:
        choices = [v for v in criterion.values if speaker == "" or v.get("speaker") in (None, speaker)]
        return Question(
            criterion,
            unit,
            f"j:{criterion.key}:{unit}",
            choices,
            stored.get((criterion.key, unit)),
            _widget(criterion),
            criterion.key == incremental,
        )

    blocks: dict[int, BlockView] = {}
    for position, speaker, text, block, _annotated in posts:
        view = blocks.setdefault(block, BlockView(block, speaker, []))
        view.posts.append(PostView(position, text))
    for criterion in criteria:
        units = set(required_units(criterion, shape, rule=spec.units))
        if criterion.unit in POST_UNITS:
            for b in blocks.values():
                for p in b.posts:
                    if p.position in units:
                        p.questions.append(question(criterion, p.position, b.speaker))
        elif criterion.unit == Unit.TURN:
            for b in blocks.values():
                if b.index in units:
                    b.questions.append(question(criterion, b.index, b.speaker))
    order = assignment.shown_order or sorted(blocks)
    shown = [blocks[i] for i in order]
    # Incremental criteria: each part appears once every earlier judged unit of that criterion is answered.
    steps = 0
    for b in shown:
        b.reveal = steps
        for p in b.posts:
            p.reveal = steps
            steps += sum(q.incremental for q in p.questions)
        steps += sum(q.incremental for q in b.questions)
    dialogue_questions = [question(c, 0, "") for c in criteria if c.unit == Unit.DIALOGUE]
    reorder_turns = reorder_value = None
    if spec.reordering:
        reorder_turns = [
            {"turn": b.index, "speaker": b.speaker, "text": " ".join(p.text for p in b.posts)} for b in shown
        ]
        saved = Reordering.objects.filter(assignment=assignment).values_list("submitted_order", flat=True).first()
        reorder_value = saved
        if saved:
            by_turn = {t["turn"]: t for t in reorder_turns}
            reorder_turns = [by_turn[i] for i in saved]
    return AnnotationPage(
        assignment,
        shown,
        dialogue_questions,
        steps if incremental else 0,
        reorder_turns,
        reorder_value,
        blocks[0].speaker if blocks else "",
    )
