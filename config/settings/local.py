"""Single-person default: SQLite, the filesystem broker and its worker (``./scripts/serve.sh``), debug on unless told
otherwise."""

from config.env import env_bool

from .base import *  # noqa: F403

DEBUG = env_bool("DEBUG", True)
