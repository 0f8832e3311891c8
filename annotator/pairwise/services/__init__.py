"""The comparisons' services: ``settings``, ``pair_order`` (the candidate shown first) and ``active_pairs``."""
