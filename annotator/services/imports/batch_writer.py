"""Checks parsed dialogues against the project (speakers, units, criteria and scales, ids already
there) and writes them in bulk, creating the source's annotators as needed."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Max
from django.utils import timezone

from annotator.importers import ParsedDialogue
from annotator.models import (
    Candidate,
    Criterion,
    Dialogue,
    GoldCount,
    ImportBatch,
    Membership,
    Project,
)
from annotator.presets.of_project import project_scheme
from annotator.selectors.structure import DialogueShape
from annotator.services.blocks import utterance_blocks
from annotator.services.import_fit import dialogue_fit_check
from annotator.services.imports.annotators import imported_annotators_create
from annotator.services.imports.copy_rows import assignments_insert, judgements_insert, posts_insert
from annotator.units import UnitError, check_value, unit_speaker
from scoring.errors import N_


class BatchWriter:
    """Validates parsed dialogues against the project and bulk-inserts them."""

    def __init__(self, project: Project, *, format_chosen: bool = True, batch: ImportBatch | None = None):
        self.project, self.batch, self.format_chosen = project, batch, format_chosen
        self.spec = project_scheme(project)
        self.criteria: dict[str, Criterion] = {c.key: c for c in project.criteria.all()}
        self.seen_ids: set[str] = set(project.dialogues.values_list("external_id", flat=True))
        self.seen_new = 0
        self.next_position = (project.dialogues.aggregate(m=Max("position"))["m"] or 0) + (1 if self.seen_ids else 0)
        memberships = Membership.objects.filter(project=project, imported=True).values_list("source_key", "user_id")
        self.annotators: dict[str, int] = dict(memberships)
        self.next_rank = (Membership.objects.filter(project=project).aggregate(m=Max("rank"))["m"] or 0) + 1
        self.dialogues = self.posts = self.judgements = self.gold_counts = self.annotators_created = 0
        self.rows = 0  # dialogues, posts, assignments, judgements and gold counts written
        self.now = timezone.now()
        self.allowed: dict[tuple[str, str], frozenset[str]] = {}  # (criterion, speaker) -> the scale's values

    # -- validation -----------------------------------------------------------------------
    def _criterion(self, parsed: ParsedDialogue, key: str, field: str) -> Criterion:
        criterion = self.criteria.get(key)
        if criterion is None:
            raise parsed.fail(
                f"criterion {key!r} is not in project {self.project.slug} (preset {self.project.preset}; "
                f"criteria: {', '.join(self.criteria)})",
                field,
            )
        return criterion

    def _check(
        self,
        parsed: ParsedDialogue,
        key: str,
        unit: int,
        value: str,
        field: str,
        shape: DialogueShape,
        speakers: dict[tuple[str, int], str] | None = None,
    ) -> None:
        """Raise unless ``value`` is on the scale of ``key`` for ``unit``; ``speakers`` memoises the units'
        speakers within one dialogue (19 annotators judge each unit of STC-3), the writer memoises the scales."""
        criterion = self._criterion(parsed, key, field)
        try:
            speaker = speakers.get((key, unit)) if speakers is not None else None
            if speaker is None:
                speaker = unit_speaker(criterion, unit, shape)
                if speakers is not None:
                    speakers[(key, unit)] = speaker
            allowed = self.allowed.get((key, speaker))
            if allowed is None:
                allowed = self.allowed[(key, speaker)] = frozenset(
                    criterion.allowed_values(speaker if criterion.speakers else None)
                )
            if value not in allowed:
                check_value(criterion, speaker, value)  # raises, with the message naming the scale
        except UnitError as exc:
            raise parsed.fail(str(exc), field) from None

    def validate(self, parsed: ParsedDialogue) -> list[int]:
        if not parsed.external_id.strip():
            raise parsed.fail("is empty", "id")
        if parsed.external_id in self.seen_ids:
            raise parsed.fail("duplicate dialogue id (already in the project or earlier in this import)", "id")
        if not parsed.posts:
            raise parsed.fail("has no posts", "turns")
        self._check_candidates(parsed)
        speakers = [p.speaker for p in parsed.posts]
        blocks = utterance_blocks(speakers)
        shape = DialogueShape.of_posts((p.speaker, b, p.annotated) for p, b in zip(parsed.posts, blocks))
        dialogue_fit_check(
            parsed,
            spec=self.spec,
            criteria=list(self.criteria.values()),
            shape=shape,
            format_chosen=self.format_chosen,
        )
        if not self._judgements_fit(parsed, shape):
            self._judgements_check(parsed, shape)  # one by one, to name the first culprit
        for g in parsed.gold_counts:
            self._check(parsed, g.criterion, g.unit, g.value, g.field, shape)
        self.seen_ids.add(parsed.external_id)
        self.seen_new += 1
        return blocks

    def _judgements_fit(self, parsed: ParsedDialogue, shape: DialogueShape) -> bool:
        """Whether every judgement of ``parsed`` is on its criterion's scale for its unit and no annotator judged
        a unit twice, checked over the dialogue at once: its distinct (criterion, unit, value) triples (DBDC3: 30
        labels of three values a unit) and the count of its distinct (annotator, criterion, unit) keys."""
        judgements = parsed.judgements
        if len({(j.annotator, j.criterion, j.unit) for j in judgements}) != len(judgements):
            return False
        speakers: dict[tuple[str, int], str] = {}
        try:
            for key, unit, value in {(j.criterion, j.unit, j.value) for j in judgements}:
                criterion = self.criteria.get(key)
                if criterion is None:
                    return False
                speaker = speakers.get((key, unit))
                if speaker is None:
                    speaker = speakers[(key, unit)] = unit_speaker(criterion, unit, shape)
                allowed = self.allowed.get((key, speaker))
                if allowed is None:
                    allowed = self.allowed[(key, speaker)] = frozenset(
                        criterion.allowed_values(speaker if criterion.speakers else None)
                    )
                if value not in allowed:
                    return False
        except UnitError:
            return False
        return True

    def _judgements_check(self, parsed: ParsedDialogue, shape: DialogueShape) -> None:
        """Raise naming the first judgement of ``parsed`` off its scale or judging a unit its annotator judged."""
        seen: set[tuple[str, str, int]] = set()
        speakers_of: dict[tuple[str, int], str] = {}
        for j in parsed.judgements:
            self._check(parsed, j.criterion, j.unit, j.value, j.field, shape, speakers_of)
            key = (j.annotator, j.criterion, j.unit)
            if key in seen:
                raise parsed.fail(f"annotator {j.annotator} judged this unit twice", j.field)
            seen.add(key)

    def _check_candidates(self, parsed: ParsedDialogue) -> None:
        """A comparison project takes comparisons (two candidates) only, and other projects none."""
        if self.spec.comparison is not None and not parsed.candidates:
            raise parsed.fail(
                N_(
                    "has no candidates: %(preset)s projects compare two candidate responses; import pairwise JSON "
                    'lines ({"id", "context", "candidates"})'
                ),
                "candidates",
                params={"preset": self.spec.label},
            )
        if self.spec.comparison is None and parsed.candidates:
            raise parsed.fail(
                N_("is a comparison of two responses, and %(preset)s projects judge dialogues, not comparisons"),
                "candidates",
                params={"preset": self.spec.label},
            )

    # -- writing --------------------------------------------------------------------------
    def _ensure_annotators(self, keys: Iterable[str]) -> None:
        missing = [k for k in dict.fromkeys(keys) if k not in self.annotators]
        if not missing:
            return
        self.annotators.update(
            imported_annotators_create(project=self.project, keys=missing, first_rank=self.next_rank)
        )
        self.next_rank += len(missing)
        self.annotators_created += len(missing)

    def write(self, batch: list[ParsedDialogue], blocks_of: list[list[int]] | None = None) -> None:
        """Write ``batch``: dialogues this writer has not seen are validated first; ``blocks_of`` (each dialogue's
        utterance blocks, as ``validate`` returned them) says they were, by ``validate`` of this writer."""
        if blocks_of is None:
            blocks_of = [self.validate(parsed) for parsed in batch]
        self._ensure_annotators(j.annotator for parsed in batch for j in parsed.judgements)
        dialogues = Dialogue.objects.bulk_create(
            Dialogue(
                project=self.project,
                external_id=p.external_id,
                language=p.language,
                source_meta=p.source_meta,
                position=self.next_position + i,
                batch=self.batch,
            )
            for i, p in enumerate(batch)
        )
        self.next_position += len(batch)
        posts, assignments, judgement_rows, gold, candidates = [], [], [], [], []
        for parsed, dialogue, blocks in zip(batch, dialogues, blocks_of):
            posts.extend(
                (dialogue.pk, i, p.speaker, p.text, b, p.source_turn_index, p.source_meta, p.annotated)
                for i, (p, b) in enumerate(zip(parsed.posts, blocks))
            )
            candidates.extend(
                Candidate(dialogue_id=dialogue.pk, slot=slot, system=c.system, text=c.text)
                for slot, c in enumerate(parsed.candidates)
            )
            order = list(dict.fromkeys(j.annotator for j in parsed.judgements))
            assignments.extend((self.annotators[key], dialogue.pk) for key in order)
            judgement_rows.append((len(assignments) - len(order), order, parsed))
            gold.extend(
                GoldCount(
                    dialogue_id=dialogue.pk,
                    criterion_id=self.criteria[g.criterion].pk,
                    unit=g.unit,
                    value=g.value,
                    count=g.count,
                    n_annotators=g.n_annotators,
                )
                for g in parsed.gold_counts
            )
        posts_insert(posts)
        assignment_ids = assignments_insert(assignments, self.now)
        Candidate.objects.bulk_create(candidates, batch_size=2000)
        judgements = [
            (assignment_of[j.annotator], self.criteria[j.criterion].pk, j.unit, j.value, j.extra, j.shown_first)
            for first, order, parsed in judgement_rows
            for assignment_of in ({key: assignment_ids[first + i] for i, key in enumerate(order)},)
            for j in parsed.judgements
        ]
        judgements_insert(judgements, self.now)
        GoldCount.objects.bulk_create(gold, batch_size=2000)
        self.dialogues += len(batch)
        self.posts += len(posts)
        self.judgements += len(judgements)
        self.gold_counts += len(gold)
        self.rows += len(dialogues) + len(posts) + len(assignments) + len(judgements) + len(gold)
