"""Power analysis on a project's labels so far (the pilot): how many annotators per item would give an alpha
interval of a chosen width, or separate two systems' mean scores (``scoring.adaptive.power_analysis``).

The pilot is one criterion's submitted judgements (``project_judgements``, long form: imported per-unit counts
without annotators are not labels of a pilot). An item of the simulation is a unit the criterion asks about; a
simulated collection for alpha has the project's size (the pilot's units per dialogue times its dialogues).
Alpha is at the criterion's level (nominal, ordinal or interval; values as numbers, else their ranks). Two
systems are told apart by a field of the dialogues' source metadata (``system_field``, e.g. ``system``); the
pilot keeps the units of the dialogues of those two systems.
"""

from __future__ import annotations

import numpy as np
from django.utils.translation import gettext

from annotator.models import Project
from annotator.selectors.judgement_arrays import project_judgements
from annotator.selectors.population import gold_dialogues
from evaluation.services.statistics import numeric_values
from scoring.adaptive import power_analysis

TARGETS = ("alpha_width", "system_difference")


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
) -> dict:
    """``{"criterion", "target", "pilot_labels", "pilot_items", "rows", "k_needed"}``: the library's rows (one per K
    from 2 to ``k_max``) and the smallest K that meets the target (None if none does)."""
    if target not in TARGETS:
        raise PowerError(gettext("Unknown target %(target)s.") % {"target": target})
    criteria = list(project.criteria.order_by("position").values_list("key", flat=True))
    key = criterion or (criteria[0] if criteria else None)
    if key not in criteria:
        raise PowerError(gettext("The project has no criterion %(key)s.") % {"key": key})
    data = project_judgements(project, keys=[key])[key]
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
