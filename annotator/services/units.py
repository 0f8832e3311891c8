"""What a criterion asks about a dialogue: its units, who wrote each, and which values apply.

One place for the rules both imports and annotators' submissions are checked against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from annotator.models import Criterion, Unit

POST_UNITS = {Unit.POST, Unit.SYSTEM_TURN, Unit.REPLY}


class UnitError(ValueError):
    """A judgement that does not fit its criterion; the message says why."""


def unit_speaker(criterion: Criterion, unit: int, speakers: Sequence[str], blocks: Sequence[int]) -> str:
    """The speaker of ``unit`` (blank for the dialogue); raises ``UnitError`` if the unit does not exist
    or is not one the criterion applies to."""
    if criterion.unit == Unit.DIALOGUE:
        if unit != 0:
            raise UnitError(f"dialogue-level criterion {criterion.key} takes unit 0, got {unit}")
        return ""
    if criterion.unit in POST_UNITS:
        if not 0 <= unit < len(speakers):
            raise UnitError(f"no post {unit} (the dialogue has {len(speakers)})")
        speaker = speakers[unit]
    else:
        n_blocks = (blocks[-1] + 1) if blocks else 0
        if not 0 <= unit < n_blocks:
            raise UnitError(f"no turn {unit} (the dialogue has {n_blocks})")
        speaker = speakers[list(blocks).index(unit)]
    if criterion.speaker and speaker != criterion.speaker:
        raise UnitError(f"criterion {criterion.key} applies to {criterion.speaker} turns, this one is by {speaker}")
    return speaker


def check_value(criterion: Criterion, speaker: str, value: str) -> None:
    """Raise ``UnitError`` unless ``value`` is on the criterion's scale for ``speaker``."""
    allowed = criterion.allowed_values(speaker if criterion.speakers else None)
    if value not in allowed:
        whose = f" on a {speaker} unit" if criterion.speakers else ""
        raise UnitError(f"{value!r} is not a value of {criterion.key}{whose} (allowed: {', '.join(allowed)})")


def required_units(criterion: Criterion, speakers: Sequence[str], blocks: Sequence[int]) -> list[int]:
    """Every unit of a dialogue the criterion asks about, in order."""
    if criterion.unit == Unit.DIALOGUE:
        return [0]
    if criterion.unit in POST_UNITS:
        candidates = list(range(len(speakers)))
        speaker_of = list(speakers)
    else:
        n_blocks = (blocks[-1] + 1) if blocks else 0
        candidates = list(range(n_blocks))
        speaker_of = [speakers[list(blocks).index(b)] for b in candidates]
    return [u for u in candidates if not criterion.speaker or speaker_of[u] == criterion.speaker]


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
            raise UnitError(f"no {what} {unit} (the dialogue has {len(axis)})")
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
