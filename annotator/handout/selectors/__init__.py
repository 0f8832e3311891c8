"""The hand-out's selectors: ``adaptive`` (an adaptive project's state, item by item) and ``stopped``."""
