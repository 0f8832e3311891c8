"""What a criterion asks about a dialogue: its units, who wrote each, and which values apply.

One place for the rules the annotation page, saves, imports, gold data, exports and run scoring
follow. A unit is asked about when it is of the criterion's kind (post, turn...), by the
criterion's speaker if it names one, and allowed by the criterion's unit rule
(``Criterion.applies_to``, ``annotator.presets.UnitRule``): every unit; the DBDC3 protocol's responses,
i.e. the turns the source annotated, and in a new collection the turns that follow a turn by another
speaker; or the last one (the response a context leads to).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from django.utils.translation import gettext

from annotator.models import Criterion, Unit
from annotator.presets import UnitRule
from annotator.selectors.structure import DialogueShape
from annotator.wording import speaker_name

POST_UNITS = {Unit.POST, Unit.SYSTEM_TURN, Unit.REPLY}


class UnitError(ValueError):
    """A judgement that does not fit its criterion; the message says why."""


def _first_post(criterion: Criterion, unit: int, shape: DialogueShape) -> int:
    return unit if criterion.unit in POST_UNITS else list(shape.blocks).index(unit)


def _rule_allows(rule: UnitRule, shape: DialogueShape, post: int) -> bool:
    """Whether ``rule`` asks about the unit starting at ``post``.

    >>> shape = DialogueShape(("S", "U", "S", "S"), (0, 1, 2, 2))
    >>> [_rule_allows(UnitRule.RESPONSES, shape, p) for p in range(4)]
    [False, True, True, True]
    >>> [_rule_allows(UnitRule.RESPONSES, DialogueShape(shape.speakers, shape.blocks, frozenset({3})), p)
    ...  for p in range(4)]
    [False, False, False, True]
    """
    if rule in (UnitRule.EVERY, UnitRule.LAST):  # LAST: the last of these (``required_units``)
        return True
    if shape.annotated is not None:
        return post in shape.annotated
    return any(s != shape.speakers[post] for s in shape.speakers[:post])


def _rule_reason(rule: UnitRule, shape: DialogueShape) -> str:
    if rule == UnitRule.LAST:
        return "it asks about the last one only"
    if shape.annotated is not None:
        return "the source collection did not annotate it"
    return "no turn by another speaker comes before it"


def unit_speaker(criterion: Criterion, unit: int, shape: DialogueShape) -> str:
    """The speaker of ``unit`` (blank for the dialogue); raises ``UnitError`` if the unit does not exist
    or is not one the criterion asks about under its unit rule (``applies_to``)."""
    if criterion.unit == Unit.DIALOGUE:
        if unit != 0:
            raise UnitError(
                gettext("dialogue-level criterion %(key)s takes unit 0, got %(unit)s")
                % {"key": criterion.key, "unit": unit}
            )
        return ""
    speakers, blocks = shape.speakers, shape.blocks
    if criterion.unit in POST_UNITS:
        if not 0 <= unit < len(speakers):
            raise UnitError(
                gettext("no post %(unit)s (the dialogue has %(len)s)") % {"unit": unit, "len": len(speakers)}
            )
        what = "post"
    else:
        n_blocks = (blocks[-1] + 1) if blocks else 0
        if not 0 <= unit < n_blocks:
            raise UnitError(
                gettext("no turn %(unit)s (the dialogue has %(n_blocks)s)") % {"unit": unit, "n_blocks": n_blocks}
            )
        what = "turn"
    first = _first_post(criterion, unit, shape)
    speaker = speakers[first]
    if criterion.speaker and speaker != criterion.speaker:
        raise UnitError(
            gettext("criterion %(key)s applies to %(speaker)s turns, this one is by %(speaker2)s")
            % {"key": criterion.key, "speaker": criterion.speaker, "speaker2": speaker}
        )
    rule = UnitRule(criterion.applies_to or UnitRule.EVERY)
    allowed = unit in required_units(criterion, shape) if rule == UnitRule.LAST else _rule_allows(rule, shape, first)
    if not allowed:
        raise UnitError(
            gettext("criterion %(key)s is not asked of %(what)s %(unit)s: %(rule_reason)s")
            % {"key": criterion.key, "what": what, "unit": unit, "rule_reason": _rule_reason(rule, shape)}
        )
    return speaker


def check_value(criterion: Criterion, speaker: str, value: str) -> None:
    """Raise ``UnitError`` unless ``value`` is on the criterion's scale for ``speaker``, or is its "not
    applicable" answer."""
    allowed = criterion.answers(speaker if criterion.speakers else None)
    if value not in allowed:
        whose = f" on a {speaker} unit" if criterion.speakers else ""
        raise UnitError(
            gettext("%(value)s is not a value of %(key)s%(whose)s (allowed: %(join)s)")
            % {"value": repr(value), "key": criterion.key, "whose": whose, "join": ", ".join(allowed)}
        )


def required_units(criterion: Criterion, shape: DialogueShape) -> list[int]:
    """Every unit of a dialogue the criterion asks about under its unit rule (``applies_to``), in order.

    >>> from annotator.models import Criterion
    >>> shape = DialogueShape(("U", "S", "U", "S"), (0, 1, 2, 3))
    >>> [required_units(Criterion(unit="turn", speaker="S", applies_to=r), shape) for r in ("every", "last")]
    [[1, 3], [3]]
    """
    if criterion.unit == Unit.DIALOGUE:
        return [0]
    if criterion.unit in POST_UNITS:
        first_posts = list(range(len(shape.speakers)))
    else:
        first_posts = [shape.blocks.index(b) for b in range(shape.blocks[-1] + 1)] if shape.blocks else []
    rule = UnitRule(criterion.applies_to or UnitRule.EVERY)
    units = [
        u
        for u, post in enumerate(first_posts)
        if (not criterion.speaker or shape.speakers[post] == criterion.speaker) and _rule_allows(rule, shape, post)
    ]
    return units[-1:] if rule == UnitRule.LAST else units


def unit_names(
    criterion_unit: str, speakers: Sequence[str], blocks: Sequence[int], shown_order: Sequence[int] | None = None
) -> dict[int, str]:
    """How the annotation page names each unit of a kind, for messages that must point at what the person sees.

    Turns are numbered from 1 in the order shown (a permuted dialogue in its shown order), with the
    speaker; a post of a turn of several posts also gets its number within the turn.

    >>> unit_names("post", ["customer", "customer", "helpdesk"], [0, 0, 1])
    {0: 'turn 1, post 1 (customer)', 1: 'turn 1, post 2 (customer)', 2: 'turn 2 (helpdesk)'}
    >>> unit_names("turn", ["A", "B", "A"], [0, 1, 2], shown_order=[0, 2, 1])
    {0: 'turn 1 (A)', 1: 'turn 3 (B)', 2: 'turn 2 (A)'}
    """
    if criterion_unit == Unit.DIALOGUE:
        return {0: gettext("the dialogue as a whole")}
    n_blocks = (blocks[-1] + 1) if blocks else 0
    order = list(shown_order) if shown_order else list(range(n_blocks))
    number = {b: i + 1 for i, b in enumerate(order)}
    block_speaker: dict[int, str] = {}
    posts_of: dict[int, list[int]] = {}
    for position, (speaker, block) in enumerate(zip(speakers, blocks)):
        block_speaker.setdefault(block, speaker)
        posts_of.setdefault(block, []).append(position)
    if criterion_unit not in POST_UNITS:
        return {
            b: gettext("turn %(number)d (%(speaker)s)")
            % {"number": number[b], "speaker": speaker_name(block_speaker[b])}
            for b in sorted(block_speaker)
        }
    names = {}
    for block, positions in posts_of.items():
        for i, position in enumerate(positions):
            names[position] = (
                gettext("turn %(number)d, post %(post)d (%(speaker)s)")
                % {"number": number[block], "post": i + 1, "speaker": speaker_name(speakers[position])}
                if len(positions) > 1
                else gettext("turn %(number)d (%(speaker)s)")
                % {"number": number[block], "speaker": speaker_name(speakers[position])}
            )
    return dict(sorted(names.items()))


def shown_rank(criterion_unit: str, blocks: Sequence[int], shown_order: Sequence[int] | None = None) -> dict[int, int]:
    """Each unit's place on the page (turns in their shown order, posts within their turn), for sorting.

    >>> shown_rank("turn", [0, 1, 2], shown_order=[0, 2, 1])
    {0: 0, 2: 1, 1: 2}
    """
    if criterion_unit == Unit.DIALOGUE:
        return {0: 0}
    n_blocks = (blocks[-1] + 1) if blocks else 0
    order = list(shown_order) if shown_order else list(range(n_blocks))
    if criterion_unit not in POST_UNITS:
        return {b: i for i, b in enumerate(order)}
    place = {b: i for i, b in enumerate(order)}
    ranked = sorted(range(len(blocks)), key=lambda p: (place[blocks[p]], p))
    return {p: i for i, p in enumerate(ranked)}


def names_list(names: Sequence[str], limit: int = 6) -> str:
    """``a``, ``a and b``, ``a, b and c``; beyond ``limit`` names, the first ones and how many more.

    >>> names_list(["turn 2 (B)", "turn 4 (B)", "turn 6 (B)"])
    'turn 2 (B), turn 4 (B) and turn 6 (B)'
    >>> names_list([f"turn {i}" for i in range(1, 10)], limit=3)
    'turn 1, turn 2, turn 3 and 6 more'
    """
    names = list(names)
    separator = gettext(", ")
    if len(names) > limit:
        return gettext("%(first)s and %(more)s more") % {
            "first": separator.join(names[:limit]),
            "more": len(names) - limit,
        }
    if len(names) <= 1:
        return "".join(names)
    return gettext("%(first)s and %(last)s") % {"first": separator.join(names[:-1]), "last": names[-1]}


@dataclass(frozen=True)
class ShownFrame:
    """Turns and posts numbered as the annotator sees them, for items shown in a permuted order.

    A reordering item (coherence) shows the dialogue's turns shuffled; which source turn each
    shown turn is, is the answer key, so everything an annotator reads or sends numbers turns
    and posts by their place in the *shown* dialogue and the server maps them to the source
    positions judgements and reorderings are stored under. ``blocks[k]`` is the source utterance
    block shown k-th, ``posts[k]`` the source position of the post shown k-th. For an item shown
    in source order both are the identity.

    >>> frame = ShownFrame.of([0, 0, 1, 2], [2, 1, 0])  # four posts in three turns, shown C, B, A
    >>> frame.blocks, frame.posts
    ((2, 1, 0), (3, 2, 0, 1))
    >>> frame.to_source(Unit.TURN, 0), frame.to_shown(Unit.POST, 3), frame.order_to_source([2, 1, 0])
    (2, 0, [0, 1, 2])
    """

    blocks: tuple[int, ...]
    posts: tuple[int, ...]

    @classmethod
    def of(cls, post_blocks: Sequence[int], shown_order: Sequence[int] | None) -> ShownFrame:
        """The frame of a dialogue whose posts belong to ``post_blocks`` (in post order), shown in
        ``shown_order`` (source blocks in shown order; None for the source order)."""
        n_blocks = (post_blocks[-1] + 1) if post_blocks else 0
        blocks = tuple(shown_order) if shown_order else tuple(range(n_blocks))
        posts_of: list[list[int]] = [[] for _ in range(n_blocks)]
        for position, block in enumerate(post_blocks):
            posts_of[block].append(position)
        return cls(blocks, tuple(p for b in blocks for p in posts_of[b]))

    @property
    def is_identity(self) -> bool:
        return all(i == b for i, b in enumerate(self.blocks))

    def _axis(self, unit_kind: str) -> tuple[int, ...] | None:
        if unit_kind == Unit.DIALOGUE:
            return None
        return self.posts if unit_kind in POST_UNITS else self.blocks

    def to_source(self, unit_kind: str, unit: int) -> int:
        """The source unit of shown unit ``unit`` of a criterion on ``unit_kind`` units; ``UnitError``
        when the dialogue has no such unit."""
        axis = self._axis(unit_kind)
        if axis is None:
            return unit
        if not 0 <= unit < len(axis):
            what = "post" if unit_kind in POST_UNITS else "turn"
            raise UnitError(
                gettext("no %(what)s %(unit)s (the dialogue has %(len)s)")
                % {"what": what, "unit": unit, "len": len(axis)}
            )
        return axis[unit]

    @cached_property
    def _shown_block(self) -> dict[int, int]:
        return {source: k for k, source in enumerate(self.blocks)}

    @cached_property
    def _shown_post(self) -> dict[int, int]:
        return {source: k for k, source in enumerate(self.posts)}

    def to_shown(self, unit_kind: str, unit: int) -> int:
        """The shown unit of source unit ``unit``."""
        if unit_kind == Unit.DIALOGUE:
            return unit
        return (self._shown_post if unit_kind in POST_UNITS else self._shown_block)[unit]

    def order_to_source(self, order: list[int]) -> list[int]:
        """A reordering given in shown turns, as source turns (unchanged when it is not a permutation:
        the reordering's own check says what is wrong with it)."""
        if sorted(order) != list(range(len(self.blocks))):
            return order
        return [self.blocks[i] for i in order]

    def order_to_shown(self, order: list[int]) -> list[int]:
        """A stored reordering (source turns) as shown turns."""
        return [self._shown_block[b] for b in order]
