"""Inter-annotator agreement from per-unit counts or from a reliability matrix.

Two inputs are used throughout:

* ``counts``: units x categories, ``counts[u, c]`` = how many annotators gave category ``c`` to
  unit ``u`` (the same array the gold distributions come from);
* ``ratings``: a reliability matrix, annotators x units, the numeric value given or NaN.

Units with fewer than two judgements carry no information about agreement and are left out.
The coefficients are in ``kappa`` (Fleiss, Randolph, the agreement shares, Cohen's matrix),
``alpha`` (Krippendorff's alpha, also leave-one-out) and ``raters`` (each rater against the others);
``intervals`` gives each coefficient its interval (bootstrap over units, jackknife where units are few).

References
----------
Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
Randolph, J. J. (2005). Free-marginal multirater kappa (multirater kappa_free).
Krippendorff, K. (2004/2011). Computing Krippendorff's alpha-reliability.
Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability measure for coding data.
Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
Zeng et al. (2017) (``zeng2017_dch1_uch.txt``, Tables 2-3): Fleiss' kappa, Randolph's kappa,
"2+ agree" and "3 agree" for DCH-1.
Gandhe & Traum (2008) (``gandhe2008_dialogue_coherence_ordering.txt``): Krippendorff's alpha
for interval ratings and Pearson inter-rater r against the mean of the other judges.
"""

from scoring.agreement.alpha import (
    LEVELS,
    LeaveOneOutAlpha,
    krippendorff_alpha,
    krippendorff_alpha_from_counts,
    krippendorff_alpha_leave_one_out,
    ratings_to_counts,
)
from scoring.agreement.intervals import (
    AgreementIntervals,
    Interval,
    agreement_intervals,
    cohen_kappa_matrix_intervals,
    fleiss_kappa_interval,
    krippendorff_alpha_interval,
    randolph_kappa_interval,
)
from scoring.agreement.kappa import (
    AgreementShares,
    KappaMatrix,
    agreement_shares,
    cohen_kappa_matrix,
    fleiss_kappa,
    randolph_kappa,
)
from scoring.agreement.raters import (
    InterRaterCorrelation,
    annotator_z_scores,
    pearson_inter_rater,
    pearson_inter_rater_long,
)

__all__ = [
    "LEVELS",
    "AgreementIntervals",
    "AgreementShares",
    "InterRaterCorrelation",
    "Interval",
    "KappaMatrix",
    "LeaveOneOutAlpha",
    "agreement_intervals",
    "agreement_shares",
    "annotator_z_scores",
    "cohen_kappa_matrix",
    "cohen_kappa_matrix_intervals",
    "fleiss_kappa",
    "fleiss_kappa_interval",
    "krippendorff_alpha",
    "krippendorff_alpha_from_counts",
    "krippendorff_alpha_interval",
    "krippendorff_alpha_leave_one_out",
    "pearson_inter_rater",
    "pearson_inter_rater_long",
    "randolph_kappa",
    "randolph_kappa_interval",
    "ratings_to_counts",
]
