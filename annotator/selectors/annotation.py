"""What the annotation page shows: the dialogue in display order with the questions on each part.

Turns, posts, question names and the reordering are numbered as shown (``ShownFrame``): the page of a
permuted item carries no trace of the source order, which is the reordering's answer key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotator.models import Assignment, Criterion, Reordering, Unit
from annotator.presets import PRESETS
from annotator.services.units import POST_UNITS, ShownFrame, required_units


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
    posts = list(dialogue.posts.order_by("position").values_list("position", "speaker", "text", "utterance_block"))
    speakers, blocks_of = [p[1] for p in posts], [p[3] for p in posts]
    frame = ShownFrame.of(blocks_of, assignment.shown_order)
    shown_block = {source: k for k, source in enumerate(frame.blocks)}
    shown_post = {source: k for k, source in enumerate(frame.posts)}
    kinds = {c.key: c.unit for c in criteria}
    stored = {
        (k, frame.to_shown(kinds[k], u)): v
        for k, u, v in assignment.judgements.values_list("criterion__key", "unit", "value")
        if k in kinds
    }
    incremental = spec.incremental

    def question(criterion: Criterion, unit: int, speaker: str) -> Question:
        """``unit`` as shown."""
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

    blocks: dict[int, BlockView] = {}  # by source block; each view numbered as shown
    post_views: dict[int, tuple[PostView, str]] = {}  # by source position
    for position, speaker, text, block in posts:
        view = blocks.setdefault(block, BlockView(shown_block[block], speaker, []))
        view.posts.append(PostView(shown_post[position], text))
        post_views[position] = (view.posts[-1], speaker)
    for criterion in criteria:
        units = required_units(criterion, speakers, blocks_of)
        if criterion.unit in POST_UNITS:
            for position in units:
                post, speaker = post_views[position]
                post.questions.append(question(criterion, post.position, speaker))
        elif criterion.unit == Unit.TURN:
            for block in units:
                view = blocks[block]
                view.questions.append(question(criterion, view.index, view.speaker))
    shown = [blocks[i] for i in frame.blocks]
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
        if saved:
            reorder_value = frame.order_to_shown(saved)
            reorder_turns = [reorder_turns[i] for i in reorder_value]
    return AnnotationPage(
        assignment,
        shown,
        dialogue_questions,
        steps if incremental else 0,
        reorder_turns,
        reorder_value,
        shown[0].speaker if shown else "",
    )
