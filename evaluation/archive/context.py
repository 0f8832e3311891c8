"""What the archive's parts share while one is written (``Names``) or restored (``Restoring``).

Each part of the archive (``evaluation.archive.parts``) writes its rows naming the rows they refer to as the
archive names them (a dialogue by external id, a criterion by key, a person by username, a run or a judge by
name) and reads them back through the maps a restore has built by then.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model

from annotator.models import Criterion, Dialogue, Project
from annotator.selectors.structure import DialogueShape
from annotator.units import UnitError, check_value, unit_speaker
from evaluation.archive.people import People
from scoring.errors import N_
from scoring.input import Record


@dataclass
class Names:
    """The names an archive gives the project's rows, for the parts that refer to them."""

    project: Project
    external_of: dict[int, str]  # dialogue id -> external id
    criterion_key: dict[int, str]  # criterion id -> key
    lazy: bool = False
    batch_index: dict[int, int] = field(default_factory=dict)  # import batch id -> its place in the archive
    _usernames: dict[int, str] = field(default_factory=dict)

    def usernames(self, ids) -> dict[int, str]:
        """user id -> username for ``ids`` (None ignored), read once per id."""
        wanted = {i for i in ids if i is not None and i not in self._usernames}
        if wanted:
            found = get_user_model().objects.filter(pk__in=wanted).values_list("pk", "username")
            self._usernames.update(found)
        return self._usernames

    def username(self, user_id: int | None) -> str | None:
        return None if user_id is None else self.usernames([user_id]).get(user_id)


@dataclass
class Restoring:
    """A restore under way: the document, the project and the maps of what is restored so far."""

    r: Record
    document: dict
    project: Project
    version: int
    criteria: dict[str, Criterion] = field(default_factory=dict)
    people: People = field(default_factory=People)
    dialogues: dict[str, Dialogue] = field(default_factory=dict)
    shapes: dict[str, DialogueShape] = field(default_factory=dict)
    runs: dict[str, int] = field(default_factory=dict)  # run name -> id
    batches: list[int] = field(default_factory=list)  # import batch ids, in the archive's order
    studies: list[int] = field(default_factory=list)  # study ids, in the archive's order
    notes: list[str] = field(default_factory=list)

    def part(self, name: str, kind: type = list):
        """The document's part ``name``: a list, or an object or null (a row of settings a project may not have);
        required from version 2 on, empty when a version 1 archive lacks it."""
        if name not in self.document:
            if self.version < 2:
                return [] if kind is list else None
            raise self.r.error(N_("is missing"), name)
        value = self.document[name]
        return None if value is None and kind is dict else self.r.value(value, kind, name)

    def dialogue(self, value, where: str) -> Dialogue:
        if not isinstance(value, str) or value not in self.dialogues:
            raise self.r.error(N_("the dialogue is not in the archive"), where)
        return self.dialogues[value]

    def criterion(self, at: Record, value, where: str) -> Criterion:
        criterion = self.criteria.get(value) if isinstance(value, str) else None
        if criterion is None:
            raise at.error(N_("the criterion is not in the archive"), where)
        return criterion

    def unit_value(self, at: Record, criterion: Criterion, external_id: str, unit, value, where: str) -> tuple:
        """``(unit, value)`` checked as a judgement's are: the unit exists and the value is on its scale."""
        unit = at.value(unit, int, f"{where}.unit")
        value = at.check_text(at.value(value, str, f"{where}.value"), where)
        try:
            shape = self.shapes[external_id]
            check_value(criterion, unit_speaker(criterion, unit, shape), value)
        except UnitError as exc:
            raise at.error(str(exc), where) from None
        return unit, value
