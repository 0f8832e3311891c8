"""MACE (``scoring.mace``, Hovy et al. 2013) against crowd-kit's implementation as the independent reference,
on the real collections and on small examples whose answer can be read off by hand."""

import json
import warnings

import numpy as np
import pytest

from scoring.aggregation import aggregate
from scoring.mace import mace


def crowdkit_mace(unit, annotator, value, *, n_units, n_values, n_annotators, names=None, n_iter=100):
    """crowd-kit's MACE as the platform called it (rows sorted by unit then annotator), with the annotators
    renamed by ``names`` (a map from index to name; default: each its order of first appearance, where
    crowd-kit's strategy counts stay with their annotator and label, see ``scoring.mace``); labels likewise
    renamed to their order of first appearance."""
    pd = pytest.importorskip("pandas")
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    unit, annotator, value = (np.asarray(x) for x in (unit, annotator, value))
    order = np.lexsort((annotator, unit))
    unit, annotator, value = unit[order], annotator[order], value[order]
    codes, workers = pd.factorize(annotator)
    labels, label_names = pd.factorize(value)
    worker_names = codes if names is None else np.asarray(names)[annotator]
    frame = pd.DataFrame({"task": unit, "worker": worker_names, "label": labels})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # one restart: crowd-kit starts every restart from the same draw (the bench runs its three)
        model = crowdkit.MACE(n_iter=n_iter, n_restarts=1, random_state=0).fit(frame)
    posteriors = np.full((n_units, n_values), np.nan)
    tasks = model.probas_.index.to_numpy(dtype=np.int64)
    posteriors[tasks] = 0.0
    posteriors[np.ix_(tasks, np.asarray(label_names)[model.probas_.columns.to_numpy(dtype=np.int64)])] = (
        model.probas_.to_numpy(dtype=float)
    )
    competence = np.full(n_annotators, np.nan)
    competence[np.asarray(workers)] = model.spamming_[:, 1]
    return posteriors, competence


def assert_same_fit(fit, reference, tolerance=1e-9):
    posteriors, competence = reference
    np.testing.assert_array_equal(np.isnan(fit.posteriors), np.isnan(posteriors))
    np.testing.assert_allclose(fit.posteriors, posteriors, atol=tolerance, rtol=0)
    np.testing.assert_allclose(fit.competence, competence, atol=tolerance, rtol=0)


def crowd(seed, n_units=60, n_annotators=8, n_values=4, per_unit=5):
    """Random labels: annotator j right with probability 0.3 + 0.08 j, else uniform."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(n_values, size=n_units)
    rows = []
    for u in range(n_units):
        for j in rng.choice(n_annotators, size=per_unit, replace=False):
            rows.append((u, j, truth[u] if rng.random() < 0.3 + 0.08 * j else rng.integers(n_values)))
    unit, annotator, value = (np.array(x) for x in zip(*rows))
    return unit, annotator, value, {"n_units": n_units, "n_values": n_values, "n_annotators": n_annotators}


def test_equals_crowdkit_on_a_random_crowd_at_every_iteration_count():
    unit, annotator, value, sizes = crowd(1)
    for n_iter in (0, 1, 30):
        fit = mace(unit, annotator, value, n_iter=n_iter, **sizes)
        assert_same_fit(fit, crowdkit_mace(unit, annotator, value, n_iter=n_iter, **sizes))


def test_crowdkit_gives_an_annotator_the_counts_of_another_when_names_sort_differently():
    """Why the platform's figures moved when it left crowd-kit's MACE: crowd-kit's fit depends on what the
    annotators are called, not only on what they answered. Renamed so that their names sort in another order
    than they appear, the same labels give crowd-kit other posteriors; here nothing changes, and crowd-kit
    agrees with these figures when the names sort in their order of appearance."""
    unit, annotator, value, sizes = crowd(4)
    ours = mace(unit, annotator, value, n_iter=30, **sizes)
    reversed_names = [f"annotator-{9 - j}" for j in range(sizes["n_annotators"])]
    theirs = crowdkit_mace(unit, annotator, value, names=reversed_names, n_iter=30, **sizes)
    assert np.max(np.abs(theirs[0] - ours.posteriors)) > 1e-3  # far beyond float noise (1e-9 below)
    assert_same_fit(ours, crowdkit_mace(unit, annotator, value, n_iter=30, **sizes))


def test_a_spammer_gets_the_lowest_competence_and_agreement_decides():
    # given three annotators who give the true label of ten units and one who answers 0 whatever it is
    truth = np.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 1])
    unit = np.repeat(np.arange(10), 4)
    annotator = np.tile(np.arange(4), 10)
    value = np.where(annotator == 3, 0, truth[unit])
    fit = mace(unit, annotator, value, n_units=10, n_values=3, n_annotators=4)
    # then the spammer's competence is far below the others', who are judged nearly always knowing
    assert fit.competence[3] < 0.5 < 0.9 < fit.competence[:3].min()
    # and the spammer's strategy puts nearly all its weight on the label it always gives
    assert fit.strategy[3, 0] > 2 * fit.strategy[3, 1:].max()
    # and every unit's posterior follows the three who agree
    assert fit.posteriors.argmax(axis=1).tolist() == truth.tolist()


def test_a_tie_goes_to_the_more_competent_annotator():
    # given annotators 0 and 1 agreeing on twelve units, annotator 2 answering against them half the time
    rng = np.random.default_rng(0)
    truth = rng.integers(2, size=12)
    unit = np.repeat(np.arange(12), 3)
    annotator = np.tile(np.arange(3), 12)
    value = np.where((annotator == 2) & (unit % 2 == 0), 1 - truth[unit], truth[unit])
    # and a unit where only annotators 0 and 2 answered, 1 and 0: one vote each
    unit, annotator, value = np.r_[unit, 12, 12], np.r_[annotator, 0, 2], np.r_[value, 1, 0]
    fit = mace(unit, annotator, value, n_units=13, n_values=2, n_annotators=3)
    # then the tie goes to annotator 0's label, and by more the larger the gap in competence
    assert fit.competence[0] > fit.competence[2]
    assert fit.posteriors[12, 1] > 0.5
    # the vote shares would not decide it
    votes = aggregate(unit, annotator, value, n_units=13, n_values=2, n_annotators=3, method="votes")
    assert votes.posteriors[12].tolist() == [0.5, 0.5]


def test_a_unit_with_one_label_has_the_closed_form_posterior():
    """One label a from annotator j: P(t) is proportional to spam_j xi_j[a] + theta_j [t = a]."""
    unit, annotator, value, sizes = crowd(5, n_values=3)
    unit, annotator, value = np.r_[unit, 60], np.r_[annotator, 6], np.r_[value, 2]
    sizes["n_units"] = 61
    fit = mace(unit, annotator, value, **sizes)
    theta, spam, xi = fit.competence[6], fit.spam[6], fit.strategy[6, 2]
    expected = np.array([spam * xi] * 3) + theta * (np.arange(3) == 2)
    np.testing.assert_allclose(fit.posteriors[60], expected / expected.sum(), atol=1e-12)
    assert_same_fit(fit, crowdkit_mace(unit, annotator, value, **sizes))


def test_values_nobody_gave_units_nobody_labelled_and_annotators_without_labels():
    # given a five-value scale of which the labels use 1 and 3, twelve units of which 10 and 11 have no label,
    # and annotator 4 who gave none
    unit, annotator, value, _ = crowd(6, n_units=10, n_annotators=4, n_values=2, per_unit=3)
    value = np.array([1, 3])[value]
    sizes = {"n_units": 12, "n_values": 5, "n_annotators": 5}
    fit = mace(unit, annotator, value, **sizes)
    # then the unused values have probability 0 and the rest sum to one; the unlabelled units have none
    assert np.all(fit.posteriors[:10, [0, 2, 4]] == 0) and np.allclose(fit.posteriors[:10].sum(axis=1), 1)
    assert np.isnan(fit.posteriors[10:]).all()
    assert np.isnan(fit.competence[4]) and np.isfinite(fit.competence[:4]).all()
    # and the fit is crowd-kit's, which sees only the values given
    assert_same_fit(fit, crowdkit_mace(unit, annotator, value, **sizes))


def test_many_annotators_on_one_unit_do_not_underflow():
    # given 400 annotators who all label the same 3 units (products of 400 factors below 1 underflow)
    rng = np.random.default_rng(7)
    unit = np.repeat(np.arange(3), 400)
    annotator = np.tile(np.arange(400), 3)
    value = np.where(rng.random(1200) < 0.6, np.repeat([0, 1, 2], 400), rng.integers(3, size=1200))
    fit = mace(unit, annotator, value, n_units=3, n_values=3, n_annotators=400)
    assert np.isfinite(fit.posteriors).all() and fit.posteriors.argmax(axis=1).tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([0, 1], [0], [0]), "same length"),
        (([0], [0], [3]), "unit or value index out of range"),
        (([0], [-1], [0]), "unit or value index out of range"),
        (([2], [0], [0]), "unit or value index out of range"),
        (([0], [5], [0]), "annotator index out of range"),
    ],
)
def test_bad_input_is_refused_with_what_is_wrong(args, message):
    with pytest.raises(ValueError, match=message):
        aggregate(*args, n_units=2, n_values=3, n_annotators=2, method="mace")


@pytest.mark.shared_data
def test_equals_crowdkit_on_dbdc3_breakdown(dbdc_dir):
    # the first 10 dialogues of DBDC3 EN eval: 100 system turns x 30 annotators
    unit, annotator, value, names, units = [], [], [], {}, 0
    for path in sorted((dbdc_dir / "eval").rglob("*.log.json"))[:10]:
        for turn in json.loads(path.read_text(encoding="utf-8"))["turns"]:
            for a in turn["annotations"]:
                unit.append(units)
                annotator.append(names.setdefault(a["annotator-id"], len(names)))
                value.append("OTX".index(a["breakdown"]))
            units += bool(turn["annotations"])
    sizes = {"n_units": units, "n_values": 3, "n_annotators": len(names)}
    assert len(value) == 3000
    fit = mace(unit, annotator, value, **sizes)
    assert_same_fit(fit, crowdkit_mace(unit, annotator, value, **sizes))
    assert np.allclose(fit.posteriors.sum(axis=1), 1)


@pytest.mark.shared_data
def test_equals_crowdkit_on_stc3_nuggets_and_scores(stc3_dir):
    # the first 100 dialogues of STC-3 EN training data, 19 annotators each
    dialogues = json.loads((stc3_dir / "train_data_en.json").read_text(encoding="utf-8"))[:100]
    scores = [(d, j, a["quality"]["A"] + 2) for d, dialogue in enumerate(dialogues)
              for j, a in enumerate(dialogue["annotations"])]  # fmt: skip
    nugget_scale = ["CNUG0", "CNUG", "CNUG*", "CNaN", "HNUG", "HNUG*", "HNaN"]
    turns = [(d, t) for d, dialogue in enumerate(dialogues) for t in range(len(dialogue["turns"]))]
    nuggets = [(i, j, nugget_scale.index(a["nugget"][t])) for i, (d, t) in enumerate(turns)
               for j, a in enumerate(dialogues[d]["annotations"])]  # fmt: skip
    for rows, n_units, n_values in ((scores, 100, 5), (nuggets, len(turns), len(nugget_scale))):
        unit, annotator, value = (np.array(x) for x in zip(*rows))
        sizes = {"n_units": n_units, "n_values": n_values, "n_annotators": int(annotator.max()) + 1}
        assert_same_fit(mace(unit, annotator, value, **sizes), crowdkit_mace(unit, annotator, value, **sizes))
