"""Gold labels beyond vote counting: latent-truth models that estimate each annotator's reliability.

Vote shares (``scoring.gold``) weigh every annotator alike. The models here estimate, from the
labels alone, how reliable each annotator is and give each unit a posterior distribution over
its true label that weighs them accordingly. Dawid-Skene and GLAD come from ``crowd-kit`` (Toloka's
maintained library of crowdsourcing aggregation methods); MACE is the library's own whole-array numpy fit
(``scoring.mace``), checked against crowd-kit's, which ran it on pandas frames fifty to a hundred times slower:

* Dawid-Skene: one confusion matrix per annotator, P(given label | true class), fitted by EM
  (Dawid & Skene 1979). Reliability reported: Raykar & Yu's spammer score of that matrix
  (``scoring.reliability.spammer_score``): 0 when the annotator's label does not depend on the true
  class (random or constant answers), 1 for a perfectly informative annotator.
* GLAD: an ability alpha_j per annotator and a difficulty beta_i per unit, P(correct) =
  sigmoid(alpha_j beta_i) (Whitehill et al. 2009). Reliability reported: alpha_j (0 or below: no
  better than guessing).
* MACE: each annotator answers knowingly with probability theta_j, else spams from a label
  distribution of their own (Hovy et al. 2013). Reliability reported: theta_j, their competence.

crowd-kit needs pandas; both are imported when Dawid-Skene or GLAD is first fitted (about two seconds). They
are the optional "models" extra (``./scripts/bootstrap.sh --models``, requirements-models.txt): without it
the vote shares and MACE work, and Dawid-Skene or GLAD answers ``ModelsNotInstalled``, whose message says
how to enable them.

References
----------
Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates using the
EM algorithm. Applied Statistics 28(1).
Whitehill, J. et al. (2009). Whose vote should count more: optimal integration of labels from
labelers of unknown expertise. NIPS.
Hovy, D. et al. (2013). Learning whom to trust with MACE. NAACL-HLT.
Ustalov, D. et al. (2021). Learning from crowds with Crowd-Kit. arXiv:2109.08584.
"""

from __future__ import annotations

import importlib.util
import warnings
from dataclasses import dataclass

import numpy as np

from scoring.reliability import spammer_score

METHODS = ("votes", "dawid-skene", "glad", "mace")
RELIABILITY = {
    "votes": "",
    "dawid-skene": "spammer score of the Dawid-Skene confusion matrix (0 spammer, 1 perfectly informative)",
    "glad": "GLAD ability alpha (0 or below: no better than guessing)",
    "mace": "MACE competence theta (probability of answering knowingly)",
}


EXTRA_METHODS = ("dawid-skene", "glad")  # fitted by crowd-kit, the optional models extra


MODELS_EXTRA_MISSING = (
    "Dawid-Skene and GLAD need the optional models extra (crowd-kit), which is not installed: "
    "run ./scripts/bootstrap.sh --models (or pip install -r requirements-models.txt and "
    "pip install --no-deps -r requirements-models-nodeps.txt) and restart."
)


class ModelsNotInstalled(ValueError):
    """Dawid-Skene or GLAD was asked for and crowd-kit is not installed (the message says how to install it)."""

    def __init__(self) -> None:
        super().__init__(MODELS_EXTRA_MISSING)


def models_installed() -> bool:
    """Whether the optional models extra (crowd-kit and pandas) is installed."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in ("crowdkit", "pandas"))
    except (ImportError, ValueError):  # a module blocked in sys.modules (None) has no spec
        return False


def method_available(method: str) -> bool:
    """Whether ``method`` can be fitted here: the vote shares and MACE always, the others with the models extra.

    Parameters
    ----------
    method : {"votes", "dawid-skene", "glad", "mace"}
        A method of ``aggregate``.

    Examples
    --------
    >>> method_available("mace")
    True
    """
    return method not in EXTRA_METHODS or models_installed()


@dataclass(frozen=True)
class Aggregation:
    """``posteriors[u]`` is unit u's distribution over the values (NaN row for a unit nobody labelled);
    ``reliability[a]`` annotator a's estimated reliability (NaN where not estimated); ``reliability_name``
    says what that number is."""

    method: str
    posteriors: np.ndarray
    reliability: np.ndarray
    reliability_name: str


def _as_frame(unit, annotator, value):
    """crowd-kit's long frame, rows sorted by unit then annotator: its models number workers and tasks in
    order of appearance and start from random values drawn in that order, so the fit must not depend on the
    order the judgements were read in (PostgreSQL and SQLite return them in different orders)."""
    import pandas as pd

    unit, annotator, value = (np.asarray(x) for x in (unit, annotator, value))
    order = np.lexsort((annotator, unit))
    return pd.DataFrame({"task": unit[order], "worker": annotator[order], "label": value[order]})


def _posteriors(probas, n_units: int, n_values: int) -> np.ndarray:
    """crowd-kit's task x label frame as a units x values array of proper distributions."""
    out = np.full((n_units, n_values), np.nan)
    table = probas.reindex(columns=range(n_values), fill_value=0.0).to_numpy(dtype=float)
    table = np.clip(np.nan_to_num(table, nan=0.0), 0.0, None)
    total = table.sum(axis=1, keepdims=True)
    rows = probas.index.to_numpy(dtype=np.int64)
    out[rows] = np.where(total > 0, table / np.where(total > 0, total, 1), 1.0 / n_values)
    return out


def aggregate(
    unit,
    annotator,
    value,
    *,
    n_units: int,
    n_values: int,
    n_annotators: int,
    method: str = "dawid-skene",
    n_iter: int = 100,
    seed: int = 0,
) -> Aggregation:
    """Posterior label distributions per unit and reliability per annotator, by ``method``.

    Parameters
    ----------
    unit, annotator, value : array-like of int, shape (n_judgements,)
        Long form: judgement k gave value index ``value[k]`` to unit ``unit[k]`` as ``annotator[k]``.
        The order of the judgements does not matter.
    n_units, n_values, n_annotators : int
    method : {"votes", "dawid-skene", "glad", "mace"}
        "votes" gives the vote shares (``scoring.gold.gold_distribution``) and no reliability.
    n_iter : int
        EM iterations (Dawid-Skene, GLAD, MACE).
    seed : int
        Seed of MACE's starting values.

    Returns
    -------
    Aggregation

    Examples
    --------
    >>> r = aggregate([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [1, 1, 0, 0, 0, 0], n_units=2, n_values=2,
    ...               n_annotators=3, method="votes")
    >>> r.posteriors.round(3).tolist()
    [[0.333, 0.667], [1.0, 0.0]]
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    unit, annotator, value = (np.asarray(x, dtype=np.int64) for x in (unit, annotator, value))
    if not (len(unit) == len(annotator) == len(value)):
        raise ValueError("unit, annotator and value must have the same length")
    if len(unit) and (
        unit.min() < 0 or unit.max() >= n_units or value.min() < 0 or value.max() >= n_values or annotator.min() < 0
    ):
        raise ValueError("unit or value index out of range")
    if len(unit) and annotator.max() >= n_annotators:
        raise ValueError("annotator index out of range")
    reliability = np.full(n_annotators, np.nan)
    if method == "votes" or not len(unit):
        counts = np.bincount(unit * n_values + value, minlength=n_units * n_values).reshape(n_units, n_values)
        total = counts.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            posteriors = np.where(total > 0, counts / total, np.nan)
        return Aggregation(method, posteriors, reliability, RELIABILITY[method])
    if method == "mace":
        from scoring.mace import mace  # scipy.special: kept out of the start-up imports

        fit = mace(unit, annotator, value, n_units=n_units, n_values=n_values, n_annotators=n_annotators,
                   n_iter=n_iter, seed=seed)  # fmt: skip
        return Aggregation(method, fit.posteriors, fit.competence, RELIABILITY[method])
    if not models_installed():
        raise ModelsNotInstalled()
    with warnings.catch_warnings():  # crowd-kit's own use of pandas APIs that pandas 3 deprecates
        warnings.simplefilter("ignore", category=FutureWarning)
        warnings.simplefilter("ignore", category=DeprecationWarning)
        return _fit(unit, annotator, value, n_units, n_values, n_annotators, method, n_iter)


def _fit(unit, annotator, value, n_units, n_values, n_annotators, method, n_iter) -> Aggregation:
    reliability = np.full(n_annotators, np.nan)
    frame = _as_frame(unit, annotator, value)
    if method == "dawid-skene":
        from crowdkit.aggregation import DawidSkene

        dawid_skene = DawidSkene(n_iter=n_iter).fit(frame)
        errors, probas = dawid_skene.errors_, dawid_skene.probas_
        if errors is None:
            raise RuntimeError("crowd-kit's Dawid-Skene model was fitted without confusion matrices")
        seen = sorted(errors.columns)
        workers = errors.index.get_level_values(0).unique()
        confusion = np.stack(
            [errors.loc[w].reindex(index=seen, columns=seen, fill_value=0.0).to_numpy().T for w in workers]
        )
        reliability[workers.to_numpy(dtype=np.int64)] = spammer_score(confusion)
    else:
        from crowdkit.aggregation import GLAD

        glad = GLAD(n_iter=n_iter).fit(frame)
        probas = glad.probas_
        reliability[glad.alphas_.index.to_numpy(dtype=np.int64)] = glad.alphas_.to_numpy(dtype=float)
    return Aggregation(method, _posteriors(probas, n_units, n_values), reliability, RELIABILITY[method])
