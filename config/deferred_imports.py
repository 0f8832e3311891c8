"""Libraries imported on their first use instead of where a dependency imports them "in case".

DRF's ``rest_framework.compat`` imports ``requests`` and ``yaml`` whenever they are installed, for its test client
(``RequestsClient``) and its YAML renderings: 30-40 ms of the start-up of every process that loads the API
(``manage.py check``, each web worker) for libraries the platform uses in two places, the single sign-on's discovery
(``annotator.views.sso_login``) and the OpenAPI document in YAML (``manage.py spectacular``). Measured again by
``bench/save_bypasses.py`` (a web process's start-up, ``django.setup()`` and the URLs with the production settings,
in new interpreters, interleaved): 0.89 x the CPU of importing them (median of 9 each, on the shared 2-core machine
at load 8, 2026-11-28).

``defer`` puts a stand-in in ``sys.modules``: ``import requests`` gives it, and the first attribute read from it
(``requests.get``, ``from requests import ...``, a submodule's import) imports the real module, which then answers
every read, so code that uses it sees no difference. (The standard library's ``LazyLoader`` does not do: the import
statement itself reads the module's ``__spec__`` and so loads it.)
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types

DEFERRED = ("requests", "yaml")
_LOADING = threading.Lock()


class DeferredModule(types.ModuleType):
    """Stands for a module not imported yet; imports it on the first read of an attribute it lacks."""

    def __getattr__(self, name: str):
        real = self.__dict__.get("_real")
        if real is None:
            with _LOADING:
                real = self.__dict__.get("_real")
                if real is None:
                    if sys.modules.get(self.__name__) is self:
                        del sys.modules[self.__name__]
                    real = self.__dict__["_real"] = importlib.import_module(self.__name__)
        return getattr(real, name)


def defer(name: str) -> None:
    """Make ``import name`` cheap until the module is used; nothing if it is imported already or not installed."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None:
        return
    stand_in = DeferredModule(name)
    stand_in.__spec__ = spec
    sys.modules[name] = stand_in


def defer_all() -> None:
    for name in DEFERRED:
        defer(name)
