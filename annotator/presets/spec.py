"""What a scheme is: its criteria and scales (``CriterionSpec``), its typed capabilities (``RunScheme``,
``UnitRule``, ``Summary``, leaderboard columns) and the ``Scheme`` that holds them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType

from django.utils.translation import gettext_noop as N_

from scoring.metric_names import (
    BREAKDOWN_METRICS,
    REORDERING_METRICS,
    STC3_NUGGET_METRICS,
    STC3_QUALITY_METRICS,
    lower_is_better,
)


def scale_of(pairs: list[tuple[str, str]], speaker: str | None = None) -> list[dict]:
    return [dict(value=v, label=lab, **({"speaker": speaker} if speaker else {})) for v, lab in pairs]


@dataclass(frozen=True)
class CriterionSpec:
    """One criterion of a scheme, as its file describes it (``annotator.presets.document``).

    ``values``: the scale, ``{"value", "label"}`` with an optional ``"speaker"`` (values that apply to that
    speaker's units only) and ``"key"`` (the keyboard key that chooses it). ``applies_to``: which of the
    units of the criterion's kind (and speaker) are asked about (``UnitRule``). ``not_applicable``: the
    answer "does not apply" (``{"value", "label"}``, optional ``"key"``), stored as its own value and left
    out of agreement and gold. ``wordings``: the translations (``{"ja": {"label": ..., "question": ...,
    "values": {value: label}, ...}}``).
    """

    key: str
    label: str
    question: str
    unit: str
    values: list[dict]
    level: str
    speaker: str = ""
    applies_to: str = "every"
    not_applicable: Mapping | None = None
    description: str = ""  # what the criterion means, for the page's glossary
    value_descriptions: Mapping[str, str] = field(default_factory=dict)  # value -> what it means (the glossary)
    merges: Mapping[str, list[list[str]]] = field(default_factory=dict)  # name -> groups of values merged
    aspect: str = ""  # the NLPCC aspect the criterion asks about (``Summary.NLPCC``)
    wordings: Mapping[str, Mapping] = field(default_factory=dict)

    def __post_init__(self):
        for name in ("value_descriptions", "merges", "wordings"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))


@dataclass(frozen=True)
class RunScheme:
    """How a project's system runs are read and scored: the one object the upload (page, API, command), the
    scorer (``evaluation.runs.services.scoring.SCORERS``, keyed by ``key``) and the leaderboard ask.

    ``uploads``: a lead uploads run files (STC-3, DBDC); otherwise the annotators' own judgements are the
    runs (coherence: their reorderings). ``options``: the upload options that apply (the rest are refused).
    """

    key: str  # also the stored ``Run.kind``
    uploads: bool
    options: tuple[str, ...]
    files_help: str
    columns: Callable[[Sequence[CriterionSpec]], tuple[LeaderboardColumn, ...]]

    def __str__(self) -> str:
        return self.key


class UnitRule(StrEnum):
    """Which units of a turn-level criterion each dialogue asks about (``annotator.units``;
    ``Criterion.applies_to``).

    Applied after the criterion's own unit kind and speaker; dialogue-level criteria ask about the
    dialogue whatever the rule.
    """

    # every post (or turn) of the criterion's speaker
    EVERY = "every"
    # The DBDC3 protocol (Higashinaka et al. 2017; the DBDC3 evaluation script): in a dialogue
    # imported with labels, the turns its source annotated (a turn with an empty annotations list
    # in a file that annotates other turns is not a unit: the opening system prompt of the English
    # logs); in a new collection (JSON lines, logs without labels), every turn that follows at
    # least one turn by another speaker (for breakdown: each system turn after the first user turn).
    RESPONSES = "responses"
    # the last of the units of the criterion's kind (and speaker): the response a context leads to (FED's
    # turn-level qualities, a chatbot's last reply)
    LAST = "last"


class Summary(StrEnum):
    """Preset-specific summaries the statistics payload carries beside agreement."""

    UCH = "uch"  # UCH/AUCH per dialogue and its correlation with the ratings (Zeng et al. 2017)
    NLPCC = "nlpcc"  # aspect scores per system (Shan et al. 2019)
    BRADLEY_TERRY = "bradley_terry"  # systems ranked from pairwise votes, per criterion (scoring.pairwise)


# A comparison's outcomes, in system terms: candidate A's system (the item's first candidate as imported,
# whatever the order shown) better, candidate B's better, a tie, both bad.
A_BETTER, B_BETTER, TIE, BOTH_BAD = "a", "b", "tie", "both_bad"
PAIR_OUTCOMES = [
    (A_BETTER, N_("A is better")),
    (B_BETTER, N_("B is better")),
    (TIE, N_("Tie")),
    (BOTH_BAD, N_("Both are bad")),
]


@dataclass(frozen=True)
class Comparison:
    """What a comparison preset adds: every item is a context and two candidate responses (``Candidate``),
    each from a named system, and every criterion asks which is better (``PAIR_OUTCOMES``) of the item as a
    whole. The candidates are shown in an order balanced across an item's annotators and recorded with
    each judgement (``shown_first``); system names stay hidden from annotators unless the lead reveals them.
    """

    candidates: int = 2
    outcomes: tuple[str, ...] = (A_BETTER, B_BETTER, TIE, BOTH_BAD)

    def criterion(self, key: str, label: str, question: str) -> CriterionSpec:
        """A criterion of the comparison: the item as a whole, the four outcomes (nominal)."""
        return CriterionSpec(key, label, question, "dialogue", scale_of(PAIR_OUTCOMES), "nominal")


@dataclass(frozen=True)
class LeaderboardColumn:
    """One metric on the leaderboard: its dotted path into ``Run.scores``, its direction, the group it is
    listed in, and whether it is one of the few shown before a group is opened."""

    key: str
    label: str
    lower_is_better: bool
    group: str = N_("Metrics")
    featured: bool = True


def metric_columns(
    path: str, names: list[str], group: str = N_("Metrics"), featured: tuple[str, ...] | None = None
) -> tuple[LeaderboardColumn, ...]:
    return tuple(
        LeaderboardColumn(f"{path}.{n}", n, lower_is_better(n), group, featured is None or n in featured) for n in names
    )


def breakdown_columns() -> tuple[LeaderboardColumn, ...]:
    """The 26 breakdown metrics in four families; the DBDC3 evaluation's main ones are shown first."""
    main = ("Accuracy(NB,PB,B)", "F1(B)", "JSD(NB,PB,B)", "MSE(NB,PB,B)")
    families = (
        ("Accuracy", lambda n: n.startswith("Accuracy")),
        (N_("F1, precision, recall"), lambda n: n.startswith(("F1", "Precision", "Recall"))),
        ("JSD", lambda n: n.startswith("JSD")),
        ("MSE", lambda n: n.startswith("MSE")),
    )
    return tuple(
        column
        for family, member in families
        for column in metric_columns("breakdown", [n for n in BREAKDOWN_METRICS if member(n)], family, main)
    )


@dataclass(frozen=True)
class Scheme:
    """An annotation scheme and everything that behaves differently for it: a scheme file
    (``annotator.presets.document``), one of the presets shipped in ``files/`` or a lead's own.

    A project keeps the document of its scheme (``Project.scheme``) and is asked what it does through
    ``project_scheme``: the pages, assignment, statistics, run scoring and the leaderboard read these fields,
    never a preset's key.
    """

    key: str
    label: str
    guidelines: str
    annotators_per_dialogue: int
    criteria: list[CriterionSpec]
    speakers: tuple[str, ...]  # the speakers a dialogue may have (imports are checked); empty: any
    reordering: bool = False  # annotators also reorder a permuted dialogue
    incremental: str | None = None  # the criterion judged turn by turn, later turns revealed once it is given
    merges: Mapping[str, Mapping[str, list[list[str]]]] = field(default_factory=dict)  # criterion -> name -> groups
    summaries: tuple[Summary, ...] = ()
    run_scheme: RunScheme | None = None  # ``RUN_SCHEMES``; None: no system runs are scored
    aspects: Mapping[str, str] = field(default_factory=dict)  # NLPCC: question key -> aspect
    formats: tuple[str, ...] = ()  # community formats "Detect" imports as this scheme's own (JSON lines always)
    comparison: Comparison | None = None  # items are two candidate responses compared (the pairwise preset)
    k_reason: str = ""  # why the default K is what it is (said where a project keeps it and lacks annotators)
    wordings: Mapping[str, Mapping] = field(default_factory=dict)  # language -> label, guidelines, k_reason

    def __post_init__(self):
        object.__setattr__(self, "merges", MappingProxyType(dict(self.merges)))
        object.__setattr__(self, "aspects", MappingProxyType(dict(self.aspects)))
        object.__setattr__(self, "wordings", MappingProxyType(dict(self.wordings)))

    def criterion(self, key: str) -> CriterionSpec | None:
        return next((c for c in self.criteria if c.key == key), None)

    @cached_property
    def translations(self) -> Mapping[str, Mapping[str, str]]:
        """language -> the scheme's English texts -> their translation in it (``annotator.wording``)."""
        table: dict[str, dict[str, str]] = {}
        for language, entry in self.wordings.items():
            own = table.setdefault(language, {})
            for name in ("label", "guidelines", "k_reason"):
                if entry.get(name):
                    own[getattr(self, name)] = entry[name]
        for c in self.criteria:
            for language, entry in c.wordings.items():
                own = table.setdefault(language, {})
                for name in ("label", "question", "description"):
                    if entry.get(name):
                        own[getattr(c, name)] = entry[name]
                if c.not_applicable and entry.get("not_applicable"):
                    own[c.not_applicable["label"]] = entry["not_applicable"]
                for v in c.values:
                    if v["value"] in entry.get("values", {}):
                        own[v["label"]] = entry["values"][v["value"]]
                    if v["value"] in entry.get("value_descriptions", {}):
                        own[c.value_descriptions[v["value"]]] = entry["value_descriptions"][v["value"]]
        return MappingProxyType({k: MappingProxyType(v) for k, v in table.items()})

    def text(self, english: str, language: str) -> str:
        """``english`` (one of the scheme's texts) in ``language`` when the scheme translates it; else as it is."""
        return self.translations.get(language, {}).get(english, english) if english else english

    @property
    def leaderboard(self) -> tuple[LeaderboardColumn, ...]:
        """The leaderboard's columns for the preset's own criteria (a project's come from its criteria)."""
        return self.run_scheme.columns(self.criteria) if self.run_scheme else ()


def stc3_leaderboard(criteria: Sequence[CriterionSpec]) -> tuple[LeaderboardColumn, ...]:
    """Quality metrics for each dialogue-level criterion, then the nugget metrics; the -log2 forms
    (DialEval's published figures) in a group of their own."""
    columns = [
        LeaderboardColumn(f"quality.{c.key}.{m}", f"{c.key}.{m}", lower_is_better(m), N_("Quality"), True)
        for c in criteria
        if c.unit == "dialogue"
        for m in STC3_QUALITY_METRICS
    ] + list(metric_columns("nugget", STC3_NUGGET_METRICS, N_("Nuggets")))
    plain = [c for c in columns if not c.key.endswith("_neglog2")]
    logs = [replace(c, group=N_("-log2 forms"), featured=False) for c in columns if c.key.endswith("_neglog2")]
    return tuple(plain + logs)


STC3_RUNS = RunScheme(
    "stc3",
    uploads=True,
    options=("alpha", "strict"),
    files_help=N_("An STC-3 / DialEval submission JSON."),
    columns=stc3_leaderboard,
)
DBDC_RUNS = RunScheme(
    "dbdc",
    uploads=True,
    options=("threshold", "strict"),
    files_help=N_("DBDC *.labels.json files, or a zip of them."),
    columns=lambda _criteria: breakdown_columns(),
)
REORDERING_RUNS = RunScheme(
    "reordering",
    uploads=False,
    options=(),
    files_help="",
    columns=lambda _criteria: metric_columns("reordering", REORDERING_METRICS),
)
RUN_SCHEMES: dict[str, RunScheme] = {r.key: r for r in (STC3_RUNS, DBDC_RUNS, REORDERING_RUNS)}
