"""One person on their own machine (named by scripts/serve.sh; never a default): SQLite, the filesystem broker and
its worker, debug on unless told otherwise."""

from config.env import env_bool

from .base import *  # noqa: F403

DEBUG = env_bool("DEBUG", True)
