"""What the annotation page shows: the dialogue in display order with the questions on each part.

Turns, posts, question names and the reordering are numbered as shown (``ShownFrame``): the page of a
permuted item carries no trace of the source order, which is the reordering's answer key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext

from annotator.models import Assignment, Candidate, Criterion, Judgement, PairwiseSettings, Reordering, Unit
from annotator.presets import A_BETTER, B_BETTER, BOTH_BAD, TIE
from annotator.presets.of_project import project_scheme
from annotator.selectors.structure import DialogueShape, dialogue_shape
from annotator.units import POST_UNITS, ShownFrame, required_units, unit_names
from annotator.wording import criterion_wording, guidelines_text

NAVIGATION_KEYS = {"j", "k"}  # keys that move between questions never choose a value


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
    where: str = ""  # how messages name the unit: "turn 4 (customer)", "the dialogue as a whole"
    label: str = ""  # the criterion's label and question in the reader's language (annotator.wording)
    question: str = ""


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
    left_speaker: str  # whose turns the page shows on the left: the same side in every item of a project
    reorder_confirmed: bool = False  # the saved order is the order shown, confirmed as the answer
    progress_noun: str = "Turn"  # what the turn-by-turn progress counts ("Turn 4 of 11")
    guidelines: str = ""  # in the reader's language, falling back to English (annotator.wording)
    candidates: list[CandidateView] | None = None  # a comparison's responses, in the order shown


@dataclass
class CandidateView:
    """A comparison's response as the page shows it: its number there (1: shown first) and its text; the
    system's name only where the lead reveals it (never otherwise in the page)."""

    number: int
    text: str
    system: str = ""


def comparison_choices(shown_first: str) -> list[dict]:
    """A comparison's four outcomes in the order and words of the page: "Response 1 is better" is the
    candidate shown first (``a`` or ``b``); the values stay in system terms.

    >>> [c["value"] for c in comparison_choices("b")]
    ['b', 'a', 'tie', 'both_bad']
    """
    first, second = (A_BETTER, B_BETTER) if shown_first != B_BETTER else (B_BETTER, A_BETTER)
    return [
        {"value": first, "label": gettext("Response 1 is better")},
        {"value": second, "label": gettext("Response 2 is better")},
        {"value": TIE, "label": gettext("About the same (tie)")},
        {"value": BOTH_BAD, "label": gettext("Both are bad")},
    ]


def comparison_candidates(assignment: Assignment) -> list[CandidateView]:
    """The item's two responses in the order this assignment shows them."""
    reveal = PairwiseSettings.objects.filter(project_id=assignment.dialogue.project_id, reveal_systems=True).exists()
    rows = list(
        Candidate.objects.filter(dialogue_id=assignment.dialogue_id).order_by("slot").values_list("system", "text")
    )
    if assignment.shown_first == B_BETTER:
        rows.reverse()
    return [
        CandidateView(number=i + 1, text=text, system=system if reveal else "") for i, (system, text) in enumerate(rows)
    ]


def choice_hotkeys(choices: list[dict], shown_labels: dict[str, str] | None = None) -> list[dict]:
    """The choices with their keys: ``key`` is the key the scheme gives the choice, else the number key (1-9,
    in the order shown, skipping numbers the scheme gives others), and ``letter`` the first letter of the
    short label (``y``/``n`` for Yes/No, ``n``/``p``/``b`` for NB/PB/B) when those letters tell every choice
    apart and none is a navigation key or another choice's key. Keys come from the English labels;
    ``shown_labels`` (value -> label in the reader's language) replaces what is shown.

    >>> yes_no = [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}]
    >>> [(c["key"], c["letter"]) for c in choice_hotkeys(yes_no)]
    [('1', 'y'), ('2', 'n')]
    >>> [c["letter"] for c in choice_hotkeys([{"value": "-1", "label": "-1: no"}, {"value": "0", "label": "0: ok"}])]
    ['', '']
    >>> na = {"value": "n/a", "label": "Not applicable", "key": "0"}
    >>> [(c["key"], c["letter"]) for c in choice_hotkeys([*yes_no, na])]
    [('1', ''), ('2', ''), ('0', '')]
    """
    given = {c["key"] for c in choices if c.get("key")}
    numbers = iter(str(n) for n in range(1, 10) if str(n) not in given)
    keys = [c.get("key") or next(numbers, "") for c in choices]
    shorts = [c["label"].split(":", 1)[0].strip() or c["value"] for c in choices]
    letters = [s[0].lower() if s[:1].isalpha() else "" for s in shorts]
    usable = all(letters) and len(set(letters)) == len(letters) and not (NAVIGATION_KEYS | given) & set(letters)
    hotkeys = [
        dict(c, key=keys[i], letter=letters[i] if usable and not c.get("key") else "", short=shorts[i])
        for i, c in enumerate(choices)
    ]
    for choice in hotkeys if shown_labels else ():
        shown = shown_labels.get(choice["value"], choice["label"])
        choice["label"], choice["short"] = shown, shown.split(":", 1)[0].strip() or choice["value"]
    return hotkeys


def _widget(criterion: Criterion) -> str:
    return (
        "select"
        if criterion.level == "nominal" and len(criterion.values) > 3 and criterion.unit != Unit.REPLY
        else "radio"
    )


@dataclass
class _Questions:
    """Makes the ``Question`` of a criterion on a unit of one assignment's dialogue, numbered as shown."""

    shape: DialogueShape
    shown_order: list[int] | None
    stored: dict[tuple[str, int], str]  # (criterion key, shown unit) -> saved value
    wordings: dict  # criterion key -> annotator.wording.CriterionWording
    incremental: str  # the key of the turn-by-turn criterion, or ""
    names: dict[str, dict[int, str]] = field(default_factory=dict)  # unit kind -> source unit -> shown name
    comparison: list[dict] | None = None  # a comparison's outcomes as the page words them (``comparison_choices``)

    def of(self, criterion: Criterion, unit: int, speaker: str, source_unit: int | None = None) -> Question:
        """``unit`` as shown (``source_unit``: where it is stored, when it differs)."""
        choices = [v for v in criterion.values if speaker == "" or v.get("speaker") in (None, speaker)]
        if criterion.not_applicable:  # an answer of its own, after the scale
            choices = [*choices, criterion.not_applicable]
        if criterion.unit not in self.names:
            self.names[criterion.unit] = unit_names(
                criterion.unit, self.shape.speakers, self.shape.blocks, self.shown_order
            )
        wording = self.wordings[criterion.key]
        compared = self.comparison is not None and criterion.unit == Unit.DIALOGUE
        return Question(
            criterion=criterion,
            unit=unit,
            name=f"j:{criterion.key}:{unit}",
            choices=choice_hotkeys(self.comparison) if compared else choice_hotkeys(choices, wording.values),
            value=self.stored.get((criterion.key, unit)),
            widget="radio" if compared else _widget(criterion),
            incremental=criterion.key == self.incremental,
            where=self.names[criterion.unit].get(unit if source_unit is None else source_unit, ""),
            label=wording.label,
            question=wording.question,
        )


def _blocks(posts: list[tuple], frame: ShownFrame) -> tuple[dict[int, BlockView], dict[int, tuple[PostView, str]]]:
    """The dialogue's views: per source block its ``BlockView`` and per source position its ``PostView`` (with
    the speaker), each numbered as shown."""
    shown_block = {source: k for k, source in enumerate(frame.blocks)}
    shown_post = {source: k for k, source in enumerate(frame.posts)}
    blocks: dict[int, BlockView] = {}
    post_views: dict[int, tuple[PostView, str]] = {}
    for position, speaker, text, block, _annotated in posts:
        view = blocks.setdefault(block, BlockView(index=shown_block[block], speaker=speaker, posts=[]))
        view.posts.append(PostView(position=shown_post[position], text=text))
        post_views[position] = (view.posts[-1], speaker)
    return blocks, post_views


def _reveal_steps(shown: list[BlockView]) -> int:
    """Number the turn-by-turn reveal: each part appears once every earlier unit of the incremental
    criterion is answered; the number of steps."""
    steps = 0
    for block in shown:
        block.reveal = steps
        for post in block.posts:
            post.reveal = steps
            steps += sum(q.incremental for q in post.questions)
        steps += sum(q.incremental for q in block.questions)
    return steps


def _reordering(assignment: Assignment, shown: list[BlockView], frame: ShownFrame):
    """The turns to reorder (as shown, or in the saved order) and the saved order, numbered as shown."""
    turns = [{"turn": b.index, "speaker": b.speaker, "text": " ".join(p.text for p in b.posts)} for b in shown]
    saved = Reordering.objects.filter(assignment=assignment).values_list("submitted_order", flat=True).first()
    if not saved:
        return turns, None
    value = frame.order_to_shown(saved)
    return [turns[i] for i in value], value


def annotation_page(assignment: Assignment) -> AnnotationPage:
    """Build the page of one assignment (a handful of queries, whatever the dialogue's length)."""
    project = assignment.dialogue.project
    spec = project_scheme(project)
    criteria = list(project.criteria.all())
    posts = list(
        assignment.dialogue.posts.order_by("position").values_list(
            "position", "speaker", "text", "utterance_block", "source_annotated"
        )
    )
    shape = DialogueShape.of_posts((p[1], p[3], p[4]) for p in posts)
    frame = ShownFrame.of(shape.blocks, assignment.shown_order)
    kinds = {c.key: c.unit for c in criteria}
    questions = _Questions(
        shape=shape,
        shown_order=assignment.shown_order,
        stored={
            (k, frame.to_shown(kinds[k], u)): v
            for k, u, v in assignment.judgements.values_list("criterion__key", "unit", "value")
            if k in kinds
        },
        wordings={c.key: criterion_wording(project, c) for c in criteria},
        incremental=spec.incremental or "",
        comparison=comparison_choices(assignment.shown_first) if spec.comparison else None,
    )
    blocks, post_views = _blocks(posts, frame)
    for criterion in criteria:
        units = required_units(criterion, shape)
        if criterion.unit in POST_UNITS:
            for position in units:
                post, speaker = post_views[position]
                post.questions.append(questions.of(criterion, post.position, speaker, position))
        elif criterion.unit == Unit.TURN:
            for block in units:
                view = blocks[block]
                view.questions.append(questions.of(criterion, view.index, view.speaker, block))
    shown = [blocks[i] for i in frame.blocks]
    steps = _reveal_steps(shown)
    reorder_turns, reorder_value = _reordering(assignment, shown, frame) if spec.reordering else (None, None)
    by_system_turn = any(c.key == spec.incremental and c.unit == Unit.SYSTEM_TURN for c in criteria)
    return AnnotationPage(
        assignment=assignment,
        blocks=shown,
        dialogue_questions=[questions.of(c, 0, "") for c in criteria if c.unit == Unit.DIALOGUE],
        incremental_steps=steps if spec.incremental else 0,
        reorder_turns=reorder_turns,
        reorder_value=reorder_value,
        # a saved order still as shown was confirmed by its annotator (the page ticks the box again)
        reorder_confirmed=reorder_value is not None and reorder_value == list(range(len(reorder_value))),
        first_speaker=shown[0].speaker if shown else "",
        # a preset's first speaker (the breakdown's user, the customer) is always on the left; else the first shown
        left_speaker=spec.speakers[0] if spec.speakers else (shown[0].speaker if shown else ""),
        progress_noun="System turn" if spec.incremental and by_system_turn else "Turn",
        guidelines=guidelines_text(project),
        candidates=comparison_candidates(assignment) if spec.comparison else None,
    )


def annotation_state(assignment_id: int) -> dict:
    """What is saved for an assignment, as the page's script holds it: the version, the status, the
    answers by form field (``j:KEY:UNIT`` -> value) and the reordering, numbered as shown (a few small queries)."""
    version, status, shown_order, dialogue_id, removed = (
        Assignment.objects.filter(pk=assignment_id)
        .values_list("version", "status", "shown_order", "dialogue_id", "removed")
        .get()
    )
    answers = Judgement.objects.filter(assignment_id=assignment_id).values_list(
        "criterion__key", "criterion__unit", "unit", "value", "revision"
    )
    order, order_revision = Reordering.objects.filter(assignment_id=assignment_id).values_list(
        "submitted_order", "revision"
    ).first() or (None, 0)
    frame = ShownFrame.of(dialogue_shape(dialogue_id).blocks, shown_order)
    gone = removed_answers(removed or {})
    revisions = {f"j:{key}:{frame.to_shown(kind, unit)}": revision for key, kind, unit, revision in gone}
    revisions.update({f"j:{key}:{frame.to_shown(kind, unit)}": r for key, kind, unit, _value, r in answers})
    revisions["reordering"] = order_revision
    return {
        "version": version,
        "status": status,
        "judgements": {f"j:{key}:{frame.to_shown(kind, unit)}": value for key, kind, unit, value, _r in answers},
        "reordering": frame.order_to_shown(order) if order else order,
        "revisions": revisions,
    }


def removed_answers(removed: dict[str, int]) -> list[tuple[str, str, int, int]]:
    """The answers an assignment's saves removed (``Assignment.removed``: "criterion id:unit" ->
    revision) as (criterion key, criterion unit kind, source unit, revision), so that a client can
    tell a removal it has not seen."""
    pairs = [(int(c), int(u), revision) for (c, u), revision in ((k.split(":"), r) for k, r in removed.items())]
    if not pairs:
        return []
    named = {
        pk: (key, kind)
        for pk, key, kind in Criterion.objects.filter(pk__in={c for c, _u, _r in pairs}).values_list(
            "pk", "key", "unit"
        )
    }
    return [(*named[c], u, r) for c, u, r in pairs if c in named]


def scheme_preview(project) -> list[Question]:
    """Each criterion's question as the annotation page asks it (its choices, keys and wording in the reader's
    language), for the lead's scheme page."""
    comparison = project_scheme(project).comparison is not None
    questions = []
    for criterion in project.criteria.all():
        wording = criterion_wording(project, criterion)
        compared = comparison and criterion.unit == Unit.DIALOGUE
        choices = [*criterion.values, *([criterion.not_applicable] if criterion.not_applicable else [])]
        questions.append(
            Question(
                criterion=criterion,
                unit=0,
                name=f"preview:{criterion.key}",
                choices=choice_hotkeys(comparison_choices("a"))
                if compared
                else choice_hotkeys(choices, wording.values),
                value=None,
                widget="radio" if compared else _widget(criterion),
                label=wording.label,
                question=wording.question,
            )
        )
    return questions
