"""Results as stored JSON: undefined numbers (NaN, infinities) become null.

PostgreSQL's json type refuses NaN, and an undefined statistic (a tau over ties, b3 of a
two-turn dialogue, the mean of nothing) is an honest result, not an error; pages show null as "—".
"""

import math
from typing import NotRequired, TypedDict


def json_finite(obj):
    """``obj`` with every non-finite float replaced by None, through dicts, lists and tuples.

    >>> json_finite({"tau": float("nan"), "p": [0.5, float("inf")], "n": 3})
    {'tau': None, 'p': [0.5, None], 'n': 3}
    """
    if isinstance(obj, dict):
        return {k: json_finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_finite(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


# The statistics payload (``stats --json``, ``GET /api/projects/SLUG/stats/``), typed: the OpenAPI
# schema is generated from these (``api.views.projects.ProjectStats``). Undefined numbers are null.


class KrippendorffAlphas(TypedDict):
    nominal: float | None
    ordinal: NotRequired[float | None]
    interval: NotRequired[float | None]


class AgreementSummary(TypedDict):
    """Agreement over the units with at least two judgements."""

    n_units: int
    n_annotators: int
    fleiss_kappa: float | None
    randolph_kappa: float | None
    krippendorff_alpha: KrippendorffAlphas
    agree_2plus: float | None
    agree_all: float | None


class MeanAndStd(TypedDict):
    mean: float | None
    std: float | None


class CriterionStatistics(AgreementSummary):
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
    counts: dict[str, int]


class UCHCorrelation(TypedDict):
    tau: float | None
    ci_low: float | None
    ci_high: float | None
    pearson: float | None


class UCHSummary(TypedDict):
    auch_mean: float | None
    kendall_tau: dict[str, UCHCorrelation]


class StatisticsPayload(TypedDict):
    project: str
    criteria: dict[str, CriterionStatistics]
    nlpcc: NotRequired[dict[str, dict[str, float]]]
    uch: NotRequired[UCHSummary]
    annotators: dict[str, AnnotatorFigures]
    value_counts: dict[str, dict[str, int]]
    gold: dict[str, GoldSummary]
    disputed: list[DisputedUnit]
