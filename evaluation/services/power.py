"""Power analysis on a project's labels so far (the pilot): how many annotators per item would give an alpha
interval of a chosen width, or separate two systems' mean scores (``scoring.adaptive.power_analysis``).

The pilot is one criterion's submitted judgements (``project_judgements``, long form: imported per-unit counts
without annotators are not labels of a pilot). An item of the simulation is a unit the criterion asks about; a
simulated collection for alpha has the project's size (the pilot's units per dialogue times its dialogues).
Alpha is at the criterion's level (nominal, ordinal or interval; values as numbers, else their ranks). Two
systems are told apart by a field of the dialogues' source metadata (``system_field``, e.g. ``system``); the
pilot keeps the units of the dialogues of those two systems.

For label gold (``target="label_gold"``) the pilot is the criterion's per-unit counts (imported counts included):
``scoring.adaptive.label_power`` fits the stop rule's prior to them and says, per delta, the labels a unit and an
item (a dialogue's units together: the pilot's median units per dialogue) take under the rule with ``k_max`` as
K_max, the judgements saved against K_max, and the simulated error rate.
"""

from __future__ import annotations

import numpy as np
from django.utils.translation import gettext

from annotator.handout.selectors.adaptive import adaptive_settings
from annotator.models import Project
from annotator.selectors.judgement_arrays import project_judgements
from annotator.selectors.population import gold_dialogues
from evaluation.services.statistics import numeric_values
from scoring.adaptive import label_power, power_analysis

TARGETS = ("alpha_width", "system_difference", "label_gold")
LABEL_DELTAS = (0.01, 0.02, 0.05, 0.1)  # the rows shown beside the delta asked for
LABEL_UNITS = 2000  # units simulated per delta


class PowerError(ValueError):
    """A power analysis that cannot run on this pilot (the message says why)."""


def project_power(
    project: Project,
    *,
    criterion: str | None = None,
    target: str = "alpha_width",
    width: float = 0.1,
    power: float = 0.8,
    effect: float | None = None,
    system_field: str = "system",
    systems: tuple[str, str] | None = None,
    k_max: int = 20,
    n_sim: int = 200,
    seed: int = 0,
    delta: float = 0.02,
) -> dict:
    """``{"criterion", "target", "pilot_labels", "pilot_items", "rows", "k_needed"}``: the library's rows (one per K
    from 2 to ``k_max``) and the smallest K that meets the target (None if none does). For ``"label_gold"`` the rows
    are per delta (``label_power``), ``k_needed`` is None and ``"delta"``, ``"max_k"``, ``"units_per_item"`` and
    ``"asked"`` (the row of ``delta``) are added."""
    if target not in TARGETS:
        raise PowerError(gettext("Unknown target %(target)s.") % {"target": target})
    criteria = list(project.criteria.order_by("position").values_list("key", flat=True))
    key = criterion or (criteria[0] if criteria else None)
    if key not in criteria:
        raise PowerError(gettext("The project has no criterion %(key)s.") % {"key": key})
    data = project_judgements(project, keys=[key])[key]
    if target == "label_gold":
        return _label_gold(project, key, data, k_max=k_max, delta=delta, seed=seed)
    if not len(data.value):
        raise PowerError(gettext("No labels yet: a power analysis needs a pilot of labels."))
    level = data.criterion.level
    value = numeric_values(data.values)[data.value] if level != "nominal" else data.value
    item = data.unit
    kwargs: dict = {}
    if target == "system_difference":
        value = numeric_values(data.values)[data.value]
        names = dict(project.dialogues.values_list("pk", f"source_meta__{system_field}"))
        unit_system = np.array([str(names.get(int(d)) or "") for d in data.unit_dialogue], dtype=object)
        label_system = unit_system[item]
        found = sorted({s for s in label_system.tolist() if s})
        chosen = list(systems) if systems else found
        if len(chosen) != 2 or not set(chosen) <= set(found):
            raise PowerError(
                gettext("Comparing systems needs exactly two systems in the dialogues' %(field)s; found: %(found)s.")
                % {"field": system_field, "found": ", ".join(found) or "-"}
            )
        keep = np.isin(label_system, chosen)
        item, value = item[keep], value[keep]
        kwargs = {"system": label_system[keep].astype(str), "effect": effect, "power": power}
    if target == "alpha_width":  # a collection of the project's size: the pilot's items per dialogue, every dialogue
        judged = len(np.unique(data.unit_dialogue[np.unique(item)]))
        kwargs["n_items"] = max(1, round(len(np.unique(item)) * gold_dialogues(project).count() / judged))
    rows = power_analysis(
        item, value, target=target, width=width, ks=range(2, k_max + 1), n_sim=n_sim, alpha_level=level, seed=seed,
        **kwargs,
    )  # fmt: skip
    needed = next((row["k"] for row in rows if row["meets"]), None)
    return {
        "criterion": key,
        "target": target,
        "pilot_labels": len(value),
        "pilot_items": len(np.unique(item)),
        "rows": rows,
        "k_needed": needed,
    }


def _label_gold(project: Project, key: str, data, *, k_max: int, delta: float, seed: int) -> dict:
    counts = data.counts()
    labelled = counts.sum(axis=1) > 0
    if not labelled.any():
        raise PowerError(gettext("No labels yet: a power analysis needs a pilot of labels."))
    if data.criterion.speakers:
        raise PowerError(
            gettext("Criterion %(key)s has a scale per speaker; label gold needs one scale.") % {"key": key}
        )
    if not 0 < delta < 1:
        raise PowerError(gettext("Delta must be between 0 and 1."))
    threshold = float((adaptive_settings(project).label_gold or {}).get(key, 0.0))
    _, units_per_dialogue = np.unique(data.unit_dialogue, return_counts=True)
    units_per_item = max(1, int(np.median(units_per_dialogue)))
    deltas = sorted({*LABEL_DELTAS, float(delta)})
    rows = label_power(
        counts[labelled], max_k=k_max, deltas=deltas, threshold=threshold, units_per_item=units_per_item,
        n_units=max(LABEL_UNITS // units_per_item, 1) * units_per_item, seed=seed,
    )  # fmt: skip
    return {
        "criterion": key,
        "target": "label_gold",
        "pilot_labels": int(counts.sum()),
        "pilot_items": int(labelled.sum()),
        "rows": rows,
        "k_needed": None,
        "delta": float(delta),
        "max_k": k_max,
        "units_per_item": units_per_item,
        "asked": next(row for row in rows if row["delta"] == float(delta)),
    }
