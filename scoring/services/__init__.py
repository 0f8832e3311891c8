"""Django-side services of the scoring app: load arrays through scoring.data, call the library, store."""
