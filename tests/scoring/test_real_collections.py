"""Cross-checks on the real collections in ../shared/data (STC-3 A/S/E and nuggets, DBDC3 breakdown)."""

import json

import numpy as np
import pytest

from scoring.agreement import fleiss_kappa, krippendorff_alpha_from_counts, randolph_kappa
from scoring.gold import merge_counts
from tests.fixtures.collections import dbdc_turn_counts

pytestmark = pytest.mark.shared_data


def stc3_counts(stc3_dir):
    data = json.loads((stc3_dir / "train_data_en.json").read_text(encoding="utf-8"))
    scale = [-2, -1, 0, 1, 2]
    quality = {
        k: np.array([[sum(a["quality"][k] == v for a in d["annotations"]) for v in scale] for d in data]) for k in "ASE"
    }
    customer = ["CNUG0", "CNUG", "CNUG*", "CNaN"]
    helpdesk = ["HNUG", "HNUG*", "HNaN"]
    nuggets = {"customer": [], "helpdesk": []}
    for d in data:
        for t, turn in enumerate(d["turns"]):
            labels = [a["nugget"][t] for a in d["annotations"]]
            scale_of = customer if turn["sender"] == "customer" else helpdesk
            nuggets[turn["sender"]].append([labels.count(x) for x in scale_of])
    return quality, {k: np.array(v) for k, v in nuggets.items()}


def test_stc3_quality_and_nugget_agreement_equal_references(stc3_dir):
    from krippendorff import alpha as reference_alpha
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    quality, nuggets = stc3_counts(stc3_dir)
    for counts in list(quality.values()) + list(nuggets.values()):
        assert fleiss_kappa(counts) == pytest.approx(sm_fleiss(counts, method="fleiss"), abs=1e-9)
        assert randolph_kappa(counts) == pytest.approx(sm_fleiss(counts, method="randolph"), abs=1e-9)
    for key, counts in quality.items():
        for level in ("nominal", "ordinal", "interval"):
            ours = krippendorff_alpha_from_counts(counts, level, values=[-2, -1, 0, 1, 2])
            reference = reference_alpha(value_counts=counts, level_of_measurement=level, value_domain=[-2, -1, 0, 1, 2])
            assert ours == pytest.approx(reference, abs=1e-9), (key, level)


def test_dbdc3_breakdown_agreement_equals_references(dbdc_dir):
    from krippendorff import alpha as reference_alpha
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    counts = dbdc_turn_counts(dbdc_dir / "eval")
    assert counts.sum(axis=1).min() == 30
    assert fleiss_kappa(counts) == pytest.approx(sm_fleiss(counts, method="fleiss"), abs=1e-9)
    assert randolph_kappa(counts) == pytest.approx(sm_fleiss(counts, method="randolph"), abs=1e-9)
    for level in ("nominal", "ordinal", "interval"):
        assert krippendorff_alpha_from_counts(counts, level) == pytest.approx(
            reference_alpha(value_counts=counts, level_of_measurement=level), abs=1e-9
        )


# Fleiss' kappa of the DBDC3 eval sets (original release) per label grouping, as computed here and by
# statsmodels; the rounded values document the agreement of each set.
DBDC3_KAPPA = {
    "en": {"NB,PB,B": 0.0654, "NB+PB,B": 0.0769, "NB,PB+B": 0.0946},
    "ja": {"NB,PB,B": 0.2961, "NB+PB,B": 0.3121, "NB,PB+B": 0.4290},
}
BREAKDOWN_GROUPINGS = {"NB,PB,B": [[0], [1], [2]], "NB+PB,B": [[0, 1], [2]], "NB,PB+B": [[0], [1, 2]]}


@pytest.mark.parametrize("language, units", [("en", 2000), ("ja", 1650)])
def test_dbdc3_eval_fleiss_kappa_per_grouping(request, language, units):
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    folder = request.getfixturevalue("dbdc_dir" if language == "en" else "dbdc_ja_dir") / "eval"
    counts = dbdc_turn_counts(folder)
    assert counts.shape == (units, 3) and counts.sum(axis=1).min() == 30
    for name, groups in BREAKDOWN_GROUPINGS.items():
        merged = merge_counts(counts, groups)
        ours = fleiss_kappa(merged)
        assert ours == pytest.approx(sm_fleiss(merged, method="fleiss"), abs=1e-9), (language, name)
        assert ours == pytest.approx(DBDC3_KAPPA[language][name], abs=5e-4), (language, name)
