"""Automatic judges against human gold: agreement with intervals, the alternative annotator test,
calibration, bias probes and prediction-powered system scores.

Every function takes arrays (no Django): the humans' judgements in long form (unit, annotator, value
index) or as per-unit counts, the judge's label per unit (a value index, -1 where it gave none) and,
where it gave them, its probabilities.

References
----------
Calderon, N., Reichart, R., & Dror, R. (2025). The Alternative Annotator Test for LLM-as-a-Judge: How to
Statistically Justify Replacing Human Annotators with LLMs. ACL 2025, 16051-16081.
Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., & Zrnic, T. (2023). Prediction-powered
inference. Science 382(6671), 669-674.
Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70(4), 213-220.
Guo, C., Pleiss, G., Sun, Y., & Weinberger, K. Q. (2017). On calibration of modern neural networks. ICML.
Brier, G. W. (1950). Verification of forecasts expressed in terms of probability. Monthly Weather Review 78.
Benjamini, Y., & Yekutieli, D. (2001). The control of the false discovery rate in multiple testing under
dependency. The Annals of Statistics 29(4), 1165-1188.
"""

from scoring.judges.agreement import JudgeAgreement, judge_agreement, majority_labels
from scoring.judges.alt_test import AltTest, alt_test, benjamini_yekutieli, combined_alt_test
from scoring.judges.bias import self_preference, swap_consistency, verbosity_bias
from scoring.judges.calibration import Calibration, calibration
from scoring.judges.ppi import MeanEstimate, classical_mean, ppi_mean

__all__ = [
    "AltTest",
    "Calibration",
    "JudgeAgreement",
    "MeanEstimate",
    "alt_test",
    "benjamini_yekutieli",
    "calibration",
    "classical_mean",
    "combined_alt_test",
    "judge_agreement",
    "majority_labels",
    "ppi_mean",
    "self_preference",
    "swap_consistency",
    "verbosity_bias",
]
