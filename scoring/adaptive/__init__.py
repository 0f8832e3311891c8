"""Adaptive budgets: when an item's gold distribution is settled, and where the next label is worth most.

Every function here is pure (numpy/scipy, no Django), over per-unit category counts, the same
``counts[u, c]`` array the gold distributions come from (``scoring.gold``):

* ``stop_rules``: the statistics of a stop rule, ``expected_gold_change`` (the expected Jensen-Shannon
  divergence between the gold now and the gold after one more label, under a Dirichlet posterior) and
  ``interval_width`` (the widest marginal credible interval of the Dirichlet posterior);
* ``states``: ``StopRule`` and ``unit_states``, each item "open", "stable" or "at_maximum", an item
  stopping when all its criteria (and, for turn-level criteria, all its units) do;
* ``allocation``: ``allocation_priority``, the order in which open items get the next label (with the
  items' states at once: ``item_states_and_priority``);
* ``label_gold``: label gold, where a unit's gold is its majority label at K_max: ``LabelStopRule`` stops a
  unit once the probability that its label at K_max differs from its label now (``label_change_probability``,
  under a Dirichlet prior over label shares fitted to the pilot: ``fit_dirichlet_prior``) is at most delta;
* ``power``: ``power_analysis``, how many annotators per item a project needs, by simulation from a pilot;
  ``label_power``, the labels per unit and item a label-gold project expects at each delta.
"""

from scoring.adaptive.allocation import allocation_priority, item_states_and_priority
from scoring.adaptive.label_gold import (
    LabelStopRule,
    fit_dirichlet_prior,
    label_change_probability,
    majority_labels,
)
from scoring.adaptive.power import label_power, power_analysis
from scoring.adaptive.states import AT_MAXIMUM, OPEN, STABLE, StopRule, item_label_counts, unit_states
from scoring.adaptive.stop_rules import expected_gold_change, interval_width, jsd_rows

__all__ = [
    "AT_MAXIMUM",
    "OPEN",
    "STABLE",
    "LabelStopRule",
    "StopRule",
    "allocation_priority",
    "expected_gold_change",
    "fit_dirichlet_prior",
    "interval_width",
    "item_label_counts",
    "item_states_and_priority",
    "jsd_rows",
    "label_change_probability",
    "label_power",
    "majority_labels",
    "power_analysis",
    "unit_states",
]
