"""The annotation schemes a project follows: ``spec`` says what a scheme is, ``document`` reads and writes scheme
files (YAML or JSON, ``scheme.schema.json``), ``catalogue`` holds the presets (the scheme files in ``files/``),
``of_project`` is the one place a project's scheme is asked."""

from annotator.presets.catalogue import CUSTOM, PRESETS, preset_choices
from annotator.presets.spec import (
    A_BETTER,
    B_BETTER,
    BOTH_BAD,
    RUN_SCHEMES,
    TIE,
    Comparison,
    CriterionSpec,
    LeaderboardColumn,
    RunScheme,
    Scheme,
    Summary,
    UnitRule,
    stc3_leaderboard,
)

__all__ = [
    "A_BETTER",
    "BOTH_BAD",
    "B_BETTER",
    "CUSTOM",
    "PRESETS",
    "RUN_SCHEMES",
    "TIE",
    "Comparison",
    "CriterionSpec",
    "LeaderboardColumn",
    "RunScheme",
    "Scheme",
    "Summary",
    "UnitRule",
    "preset_choices",
    "stc3_leaderboard",
]
