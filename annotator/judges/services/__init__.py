"""The judges' services: ``labels`` (import a judge's labels, remove a judge) and ``endpoint`` (endpoint judges)."""
