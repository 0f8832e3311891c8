"""The study report as data: the datasheet's parts and the agreement figures with their intervals
(``content.project_report`` builds it; the renderers lay it out)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Figure:
    """One coefficient with its interval, when the statistics carry one (``ci_method`` set and ``ci`` None:
    computed, but undefined, as over units that all agree)."""

    value: float | None
    ci: tuple[float, float] | None = None
    ci_method: str = ""
    resamples: int | None = None
    confidence: float | None = None
    jackknife_below: int | None = None


@dataclass(frozen=True)
class AgreementRow:
    """Agreement of one criterion, of one speaker's units of it, or of one merge of its labels."""

    criterion: str
    kind: str  # "criterion", "speaker", "pooled" (over speakers whose scales differ) or "merge"
    part: str  # the speaker or the merge's name; "" for the criterion itself
    n_units: int
    n_annotators: int
    fleiss: Figure
    randolph: Figure
    alpha_level: str
    alpha: Figure
    alpha_other: dict[str, Figure]
    agree_2plus: float | None
    agree_all: float | None
    pairable_values: int | None = None  # the labels on units with two or more (what the figures count)
    category_counts: list[tuple[str, int]] = field(default_factory=list)  # labels per category (the marginals)


@dataclass(frozen=True)
class Wording:
    language: str
    language_name: str
    label: str
    question: str
    values: list[tuple[str, str]]  # (value, label) in scale order
    as_english: bool  # no own wording in this language: annotators read the English


@dataclass(frozen=True)
class CriterionSheet:
    key: str
    unit: str
    level: str
    speaker: str
    values: list[str]
    wordings: list[Wording]


@dataclass(frozen=True)
class StudySheet:
    name: str
    is_open: bool
    items_per_participant: int
    time_limit_minutes: int
    participants: int
    consented: int
    has_consent_text: bool


@dataclass(frozen=True)
class StatisticsState:
    status: str  # "current", "stale" or "missing"
    fingerprint: str = ""
    computed_at: datetime | None = None
    library_version: str = ""
    n_judgements: int = 0
    new_items: int = 0


@dataclass(frozen=True)
class Exclusion:
    annotator: str
    reason: str
    at: datetime | None


@dataclass(frozen=True)
class AdjudicationRow:
    criterion: str
    dialogue: str
    unit: int
    value: str
    note: str
    adjudicator: str


@dataclass(frozen=True)
class QualitySheet:
    control_rate: float
    control_items: int
    training_items: int
    pass_mark: float
    too_fast_seconds: int
    source: str
    qualified_passed: int
    qualified_admitted: int
    control_answers: int  # from the statistics
    control_accuracy: float | None  # pooled over annotators' answers, from the statistics
    annotators_with_controls: int
    too_fast_items: int
    timed_items: int
    flagged: list[tuple[str, list[str]]]  # (annotator, flags in English)
    adjudicated_units: int
    adjudicated_agree: int


@dataclass(frozen=True)
class Report:
    project_name: str
    slug: str
    preset: str
    language: str
    generated_at: datetime
    statistics: StatisticsState
    guidelines: list[tuple[str, str, bool]]  # (language name, text, as English)
    dialogues: int  # in the project, control and training items left out
    dialogue_languages: list[tuple[str, int]]
    systems: list[tuple[str, int]]  # system -> dialogues (from the source's metadata), most first
    system_fields: list[str]  # where the sources name the systems (``annotator.importers.systems``), translated
    runs: list[str]  # runs scored against the gold on the leaderboard
    criteria: list[CriterionSheet]
    k_asked: int
    annotators_are: str  # who the lead says the annotators are (``AnnotatorsAre``'s label), translated
    members: dict[str, int]  # role -> active members (imported annotators apart)
    imported_annotators: int
    own_annotators: int
    study_participants: int
    studies: list[StudySheet]
    work: dict | None  # the payload's "work": items, annotators and seconds per item
    labels: dict | None  # the payload's "labels"
    population: dict | None
    quality: QualitySheet
    exclusions: list[Exclusion]
    adjudications: int
    adjudications_by_criterion: list[tuple[str, int]]
    adjudications_listed: list[AdjudicationRow]
    agreement: list[AgreementRow]
    methods: str
    merges: list[str] = field(default_factory=list)
    adaptive: dict | None = None  # the payload's "adaptive" (adaptive budgets only)

    @property
    def has_statistics(self) -> bool:
        return self.statistics.status != "missing"
