"""The names of the metrics a run is scored with, and which way each is better.

Plain data with no numpy, so that the presets (and with them every process start) can name the
leaderboard's columns without importing the numeric modules.

References
----------
Tsunomori et al. (2020), Table 1 (``tsunomori2020_breakdown_metrics.txt``); Sakai (2017) and
DialEval-1 for the STC-3 quality and nugget metrics; Gandhe & Traum (2008) for the reorderings.
"""

from __future__ import annotations

# The names of Table 1, in its order.
TABLE1 = [
    "Accuracy(NB,PB,B)",
    "Accuracy(NB,PB+B)",
    "Accuracy(NB+PB,B)",
    "Accuracy+w(NB,PB,B)",
    "Accuracy+w(NB,PB+B)",
    "Accuracy+w(NB+PB,B)",
    "F1(B)",
    "F1(PB+B)",
    "F1+w(B)",
    "F1+w(PB+B)",
    "JSD(NB,PB,B)",
    "JSD(NB,PB+B)",
    "JSD(NB+PB,B)",
    "JSD+w(NB,PB,B)",
    "JSD+w(NB,PB+B)",
    "JSD+w(NB+PB,B)",
    "MSE(NB,PB,B)",
    "MSE(NB,PB+B)",
    "MSE(NB+PB,B)",
    "MSE+w(NB,PB,B)",
    "MSE+w(NB,PB+B)",
    "MSE+w(NB+PB,B)",
]

# Table 1 and the precision and recall behind its two F-measures: every metric a breakdown run gets.
BREAKDOWN_METRICS = TABLE1 + ["Precision(B)", "Recall(B)", "Precision(PB+B)", "Recall(PB+B)"]


# The metrics a run gets, as ``Run.scores`` names them (DialEval publishes the -log2 forms too).
STC3_QUALITY_METRICS = ["rsnod", "nmd", "rsnod_neglog2", "nmd_neglog2"]
STC3_NUGGET_METRICS = ["rnss", "jsd", "rnss_neglog2", "jsd_neglog2"]
REORDERING_METRICS = ["tau", "b2", "b3", "b23"]
_DISTANCES = ("rsnod", "nmd", "rnss", "jsd", "mse")


def lower_is_better(metric: str) -> bool:
    """Whether a smaller value of ``metric`` is better: distances and errors are, their -log2 forms are not.

    >>> [lower_is_better(m) for m in ("rsnod", "rsnod_neglog2", "JSD+w(NB,PB,B)", "F1(B)", "tau")]
    [True, False, True, False, False]
    """
    name = metric.lower()
    return not name.endswith("neglog2") and name.startswith(_DISTANCES)
