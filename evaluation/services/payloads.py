"""The statistics payload as stored JSON, typed (undefined numbers are null: ``json_codec.json_finite``)."""

from typing import NotRequired, TypedDict

from evaluation.handout.services import AdaptiveSummary

# The statistics payload (``stats --json``, ``GET /api/projects/SLUG/stats/``), typed: the OpenAPI
# schema is generated from these (``api.views.projects.ProjectStats``). Undefined numbers are null.


class KrippendorffAlphas(TypedDict):
    nominal: float | None
    ordinal: NotRequired[float | None]
    interval: NotRequired[float | None]


class Interval(TypedDict):
    """A coefficient's confidence interval: bootstrap over units, or jackknife below ``jackknife_below`` units."""

    ci: list[float | None]  # [low, high]
    ci_method: str  # "bootstrap" or "jackknife"
    resamples: int  # bootstrap draws, or the units left out one at a time


class KrippendorffAlphaIntervals(TypedDict):
    nominal: Interval
    ordinal: NotRequired[Interval]
    interval: NotRequired[Interval]


class AgreementIntervals(TypedDict):
    confidence: float
    jackknife_below: int
    fleiss_kappa: Interval
    randolph_kappa: Interval
    krippendorff_alpha: KrippendorffAlphaIntervals


class AgreementSummary(TypedDict):
    """Agreement over the units with at least two judgements, each coefficient's interval, and the data behind
    them: the categories in column order, the labels in each (the kappas' marginals), alpha's coincidence
    matrix, and how many values could be paired (``agreement_evidence``)."""

    n_units: int
    n_annotators: int
    n_imported_counts: NotRequired[int]  # labels published as counts without annotators (NLPCC)
    fleiss_kappa: float | None
    randolph_kappa: float | None
    krippendorff_alpha: KrippendorffAlphas
    agree_2plus: float | None
    agree_all: float | None
    intervals: AgreementIntervals
    categories: list[str]
    category_counts: list[int]
    coincidences: list[list[float]]
    pairable_values: int


class MeanAndStd(TypedDict):
    mean: float | None
    std: float | None


class CriterionStatistics(AgreementSummary):
    n_labels: int  # the labels the figures are computed from: judgements and imported counts
    pearson_inter_rater: NotRequired[MeanAndStd]
    by_speaker: NotRequired[dict[str, AgreementSummary]]
    merges: NotRequired[dict[str, AgreementSummary]]


class CriterionBias(TypedDict):
    mean: float
    z_bias: float | None


class AnnotatorFigures(TypedDict):
    judgements: int
    agreement_with_majority: float | None
    median_seconds: float | None
    criteria: dict[str, CriterionBias]


class GoldSummary(TypedDict):
    mean_distribution: dict[str, float]
    entropy_histogram: list[int]


class DisputedUnit(TypedDict):
    criterion: str
    dialogue_id: int
    dialogue: str
    unit: int
    entropy: float
    agreement: float  # the share of the unit's pairs of labels that agree
    n_labels: int
    counts: dict[str, int]


class UCHCorrelation(TypedDict):
    tau: float | None
    ci_low: float | None
    ci_high: float | None
    pearson: float | None


class UCHSummary(TypedDict):
    auch_mean: float | None
    kendall_tau: dict[str, UCHCorrelation]


class LeaveOneOutAlpha(TypedDict):
    """Krippendorff's alpha of the others without this annotator, and alpha (all) minus that."""

    without: float | None
    effect: float | None


class ControlPoint(TypedDict):
    submitted_at: str | None
    accuracy: float
    cumulative: float


class ControlAccuracy(TypedDict):
    items: int
    answers: int
    accuracy: float
    series: list[ControlPoint]


class Timing(TypedDict):
    items: int
    median_seconds: float
    too_fast: int
    too_fast_share: float


class StraightLining(TypedDict):
    eligible: int
    straight: int
    share: float | None


class AdjudicatedAgreement(TypedDict):
    units: int
    agree: int
    agreement: float


class FlagMessage(TypedDict):
    """A reliability flag as its untranslated message (``%(name)s`` placeholders) and the parameters."""

    message: str
    params: dict[str, str | int | float]


class AnnotatorReliability(TypedDict):
    judgements: int
    too_fast_seconds: int
    alpha: dict[str, LeaveOneOutAlpha]
    models: dict[str, dict[str, float | None]]  # criterion -> method -> reliability
    control: ControlAccuracy | None
    timing: Timing | None
    straight_lining: StraightLining | None
    adjudicated: AdjudicatedAgreement | None
    flags: list[str]  # in English
    flag_messages: list[FlagMessage]  # the same flags as message and parameters, translated when shown


class KappaHeatMap(TypedDict):
    """Pairwise Cohen's kappa of (at most 30 of) the ``of`` annotators, with the units each pair shared, each
    kappa's interval over those units, and each annotator's labels per category (in ``categories`` order)."""

    annotators: list[str]
    weights: str
    kappa: list[list[float | None]]
    shared: list[list[int]]
    of: int
    categories: list[str]
    ci_low: list[list[float | None]]
    ci_high: list[list[float | None]]
    ci_method: list[list[str | None]]
    confidence: float
    jackknife_below: int
    resamples: int
    category_counts: list[list[int]]


class ModelInfo(TypedDict):
    reliability: str
    skipped: str


class ReliabilityThresholds(TypedDict):
    alpha_effect: float
    control_accuracy: float
    straight_lining: float
    too_fast: float
    dawid_skene_spammer: float
    adjudicated_agreement: float
    min_answers: int
    too_fast_seconds: int
    min_model_judgements: int


class Reliability(TypedDict):
    annotators: dict[str, AnnotatorReliability]
    alpha: dict[str, float | None]
    kappa: dict[str, KappaHeatMap]
    models: dict[str, dict[str, ModelInfo]]
    models_pending: bool  # the latent-truth models' estimate is still being computed on the workers
    thresholds: ReliabilityThresholds


class ExcludedAnnotator(TypedDict):
    annotator: str
    reason: str


class Population(TypedDict):
    """Whose judgements the statistics cover: the source filter, included and excluded annotators."""

    source: str
    included: list[str]
    excluded: list[ExcludedAnnotator]


class LabelCounts(TypedDict):
    """What the statistics are computed from (``statistics.label_counts``)."""

    total: int
    judgements: int
    imported_counts: int  # labels published as counts, without annotators
    annotators: int


class BTSystem(TypedDict):
    """One system's row of a Bradley-Terry leaderboard (``scoring.pairwise.leaderboard_rows``)."""

    system: str
    score: float | None  # natural-log strength, centred to mean 0
    elo: float | None
    ci: list[float | None]  # bootstrap interval
    sandwich_ci: list[float | None]
    rank: int
    rank_ci: list[int]
    wins: int
    losses: int
    ties: int


class BTStyleControlled(TypedDict):
    systems: list[BTSystem]
    coefficients: dict[str, float | None]
    coefficient_ci: dict[str, list[float | None]]
    scale: dict[str, float | None]


class PositionBias(TypedDict):
    first_shown_wins: int
    decisive: int
    share: float | None
    ci: list[float | None]
    p_value: float | None
    ties: int
    n: int


class IntransitiveTriads(TypedDict):
    cyclic: int
    triads_with_data: int
    decided: int
    share: float | None
    examples: list[list[str]]


class WinMatrix(TypedDict):
    systems: list[str]
    wins: list[list[int]]
    ties: list[list[int]]


class DroppedVotes(TypedDict):
    winner: str
    loser: str
    tie: bool
    votes: int


class VoteDropping(TypedDict):
    votes: int | None
    share: float | None
    leader: str | None
    new_leader: str | None
    removed: list[DroppedVotes]
    method: str


class CollectionState(TypedDict):
    state: str  # collecting, separated, budget_spent
    reason: str
    votes_used: int
    budget: int | None
    overlapping: list[list[str]]
    active: bool
    unvoted: list[str]


class BradleyTerrySummary(TypedDict):
    """A comparison criterion's ranking of systems (``evaluation.pairwise.services``)."""

    systems: list[BTSystem]
    ties: str
    bootstrap: int
    level: float
    n_votes: int
    estimable: bool  # False while some system won or lost every vote against the rest (its score is unbounded)
    both_bad: int
    tie_parameter: float | None
    style_controlled: BTStyleControlled
    position_bias: PositionBias
    intransitive_triads: IntransitiveTriads
    win_matrix: WinMatrix
    vote_dropping: VoteDropping
    collection: NotRequired[CollectionState]


class Spread(TypedDict):
    n: int
    median: float
    q1: float
    q3: float
    min: float
    max: float


class WorkSummary(TypedDict):
    """Items judged, annotators per item and per unit of each criterion, imported and collected items and seconds
    per item (``work_summary``), for the study report. The last three are absent from payloads stored before
    they were added."""

    items: int
    items_with_annotators: int
    annotators_per_item: Spread | None
    seconds_per_item: Spread | None
    annotators_per_item_asked: int
    annotators_per_unit: NotRequired[dict[str, Spread | None]]
    items_imported: NotRequired[int]
    items_collected: NotRequired[int]


class StatisticsPayload(TypedDict):
    """The statistics as every reader answers them (the stats API, ``stats --json``): the stored payload of the
    scheduled recomputation with the running figures read from the live state (each criterion's ``n_units``,
    kappas and alpha, ``value_counts``, each ``gold`` entry's ``mean_distribution``:
    ``incremental.statistics_with_running_figures``); ``ProjectStatistics.payload`` stores it without them."""

    project: str
    criteria: dict[str, CriterionStatistics]
    nlpcc: NotRequired[dict[str, dict[str, float]]]
    uch: NotRequired[UCHSummary]
    bradley_terry: NotRequired[dict[str, BradleyTerrySummary]]  # comparison projects, per criterion
    annotators: dict[str, AnnotatorFigures]
    value_counts: dict[str, dict[str, int]]
    gold: dict[str, GoldSummary]
    disputed: list[DisputedUnit]
    reliability: Reliability
    population: Population
    labels: LabelCounts
    work: NotRequired[WorkSummary]
    adaptive: NotRequired[AdaptiveSummary]  # projects with an adaptive budget


class LiveFreshness(TypedDict):
    """Whether the dashboard's live figures (its units, kappas, alpha, label counts and mean gold distributions,
    kept current by every save) include every change, as the dashboard's notice says it.

    ``stale``: a structural change (an exclusion, an import, an import removed, control items, the source) is
    not in them yet; they are being rebuilt from the judgements (seconds; minutes at millions of judgements).
    ``stale_since``: the first such change not included (ISO 8601, UTC), ``stale_because`` its kind (``first``,
    ``exclusion``, ``inclusion``, ``quality_items``, ``source``, ``population``, ``import``,
    ``import_removed``, ``inconsistent``, ``differed``) and ``stale_reason`` the dashboard's words for it (in
    the request's language); all three null when current. ``built_at``: when the last rebuild committed (null:
    never built), ``rebuild_seconds`` how long it took."""

    stale: bool
    stale_since: str | None
    stale_because: str | None
    stale_reason: str | None
    built_at: str | None
    rebuild_seconds: float | None


class FreshnessAnswer(TypedDict):
    """Whether one thing derived from the judgements reflects them, as every page shows it
    (``evaluation.services.freshness``). ``part``: ``statistics``, ``live``, ``models``, ``runs`` or ``result``;
    ``current``: it reflects the current judgements; ``computed_at``: when it was computed (ISO 8601, UTC; null:
    never); ``stale_since``: the first change it does not include (null when current or not known); ``reason``: why
    it is stale, in the request's language (empty when current); ``pending``: a worker is bringing it up to date."""

    part: str
    current: bool
    computed_at: str | None
    stale_since: str | None
    reason: str
    pending: bool


class StatisticsAnswer(StatisticsPayload):
    """The statistics as the API and ``stats --json`` answer them: the payload of a full recomputation, which
    counts every change (recomputed on request when the judgements changed), ``live``: whether the
    dashboard's live figures are current yet, and ``freshness``: every derived thing's freshness by part
    (``statistics``, ``live``, and ``models`` and ``runs`` where there are some), as the dashboard shows it."""

    live: LiveFreshness
    freshness: dict[str, FreshnessAnswer]
