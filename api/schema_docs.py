"""``documented(...)``: drf-spectacular's ``@extend_schema`` for the API's view methods, recorded when the view is
defined and applied when the OpenAPI document is first built (``api.schema.DocumentedSchemaGenerator``).

``extend_schema`` subclasses the schema class as it decorates (``api.schema.ErrorsDocumented``, hence
drf-spectacular's generator and with it DRF's test client, Django's test framework and Jinja2): every process
that loads the URLs (``manage.py check``, each web worker) would pay for it, while only the document's two pages
and ``manage.py spectacular`` read what it makes. The arguments are exactly ``extend_schema``'s; decorations are
applied in the order they were made, so stacked ones combine as they would have.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_PENDING: list[tuple[Callable, dict[str, Any]]] = []


def documented(**schema: Any) -> Callable[[Callable], Callable]:
    """``@extend_schema(**schema)`` on a view method, applied when the document is built."""

    def decorator(method: Callable) -> Callable:
        _PENDING.append((method, schema))
        return method

    return decorator


def apply_documentation() -> None:
    """Apply the recorded decorations not yet applied (views imported since the last document included)."""
    from drf_spectacular.utils import extend_schema

    while _PENDING:
        method, schema = _PENDING.pop(0)
        extend_schema(**schema)(method)  # sets the method's schema class in place
