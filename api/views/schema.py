"""The OpenAPI document (``/api/schema/``) and its Swagger UI (``/api/docs/``): drf-spectacular's views, imported
the first time they are used.

Importing them loads the schema generator and with it DRF's test client, Django's test framework and Jinja2
(about a tenth of a second), which every process that loads the URLs (``manage.py check``, each web worker)
would otherwise pay for two pages few requests ask for.
"""

from __future__ import annotations

from importlib import import_module


class LazyAPIView:
    """A DRF view given by its dotted path, made (``as_view(**initkwargs)``) on first use.

    Django calls it like the view; what the schema generator and the middleware read from a view
    (``cls``, ``initkwargs``, ``csrf_exempt``...) is the made view's.
    """

    def __init__(self, dotted: str, **initkwargs) -> None:
        self._dotted, self._initkwargs, self._view = dotted, initkwargs, None

    def _made(self):
        if self._view is None:
            module, name = self._dotted.rsplit(".", 1)
            self._view = getattr(import_module(module), name).as_view(**self._initkwargs)
        return self._view

    def __call__(self, request, *args, **kwargs):
        return self._made()(request, *args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)  # copy, pickle and introspection: not the view's
        return getattr(self._made(), name)


# APIView.as_view() exempts its views from CSRF; the middleware reads that before the first call
schema = LazyAPIView("drf_spectacular.views.SpectacularAPIView")
docs = LazyAPIView("drf_spectacular.views.SpectacularSwaggerSplitView", url_name="schema")
schema.csrf_exempt = docs.csrf_exempt = True
