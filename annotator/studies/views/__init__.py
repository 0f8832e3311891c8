"""The studies' pages: ``participant`` (the public link a participant follows) and ``lead`` (the lead's pages)."""
