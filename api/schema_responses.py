"""Answers the views declare in their ``documented(...)``, built without drf-spectacular's schema machinery.

``drf_spectacular.plumbing`` (and ``openapi``, behind ``api.schema``) import DRF's test client and with it
Django's test framework and Jinja2: a tenth of a second that every process loading the URLs would pay for a
document only the schema endpoint builds. These are read when the document is.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse

# For a view's ``documented(...)`` to declare an error of its own kind with the usual body (e.g. a 409);
# ``api.schema`` adds the ``Error`` component it points to.
ERROR_RESPONSE = OpenApiResponse({"$ref": "#/components/schemas/Error"})


class TypedDictResponse(OpenApiResponse):
    """An answer whose body is a ``TypedDict``, resolved to its schema when the document is built."""

    def __init__(self, hint: type, description: str = "") -> None:
        self.hint = hint
        super().__init__(description=description)

    @property
    def response(self):
        from drf_spectacular.plumbing import resolve_type_hint

        return resolve_type_hint(self.hint)

    @response.setter
    def response(self, _value) -> None:
        """``OpenApiResponse.__init__`` sets it; the hint stands in for it."""
