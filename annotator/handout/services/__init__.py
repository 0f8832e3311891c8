"""The hand-out's services: ``bulk``, ``one_at_a_time``, ``next_item`` and ``adaptive``."""
