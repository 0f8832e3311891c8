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
* ``power``: ``power_analysis``, how many annotators per item a project needs, by simulation from a pilot.
"""

from scoring.adaptive.allocation import allocation_priority, item_states_and_priority
from scoring.adaptive.power import power_analysis
from scoring.adaptive.states import AT_MAXIMUM, OPEN, STABLE, StopRule, item_label_counts, unit_states
from scoring.adaptive.stop_rules import expected_gold_change, interval_width, jsd_rows

__all__ = [
    "AT_MAXIMUM",
    "OPEN",
    "STABLE",
    "StopRule",
    "allocation_priority",
    "expected_gold_change",
    "interval_width",
    "item_label_counts",
    "item_states_and_priority",
    "jsd_rows",
    "power_analysis",
    "unit_states",
]
