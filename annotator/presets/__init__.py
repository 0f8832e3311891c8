"""The annotation schemes a project starts from: ``spec`` says what a preset is, ``catalogue`` holds the
presets of the source papers (DCH-1, STC-3/DialEval, dialogue coherence, DBDC3 breakdown, NLPCC,
pairwise comparison)."""

from annotator.presets.catalogue import NLPCC_QUESTIONS, NLPCC_SEVERE_ERROR, PRESETS, preset_choices
from annotator.presets.spec import (
    A_BETTER,
    B_BETTER,
    BOTH_BAD,
    RUN_SCHEMES,
    TIE,
    Comparison,
    CriterionSpec,
    LeaderboardColumn,
    PresetSpec,
    RunScheme,
    Summary,
    UnitRule,
    pgettext_noop,
    stc3_leaderboard,
)

__all__ = [
    "A_BETTER",
    "BOTH_BAD",
    "B_BETTER",
    "NLPCC_QUESTIONS",
    "NLPCC_SEVERE_ERROR",
    "PRESETS",
    "RUN_SCHEMES",
    "TIE",
    "Comparison",
    "CriterionSpec",
    "LeaderboardColumn",
    "PresetSpec",
    "RunScheme",
    "Summary",
    "UnitRule",
    "pgettext_noop",
    "preset_choices",
    "stc3_leaderboard",
]
