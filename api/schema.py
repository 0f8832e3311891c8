"""The OpenAPI document's error answers, in one place: every operation lists the errors it can answer.

The views declare their successful answers (and the errors that carry a body of their own, such as the
import job's 400 or the save's 409) with ``documented(...)`` (``api.schema_docs``: drf-spectacular's
``extend_schema``, applied when the document is built); this schema class adds the rest from what the operation
is, so that no status code the API answers goes undocumented (Schemathesis checks the live server against the
document, ``tests/api/test_schemathesis_live.py``):

- 400 (``ValidationError``) when it takes a body or query parameters;
- 401 and 403 (``Error``) unless anyone may call it (the token endpoint);
- 404 (``Error``) when its path names something (a project, an assignment...) or its list is paged;
- 413 (``Error``) when it takes an upload, 415 (``Error``) when it takes a body;
- 414 (gunicorn's HTML page) when its URL carries values (path or query), which can make it too long;
- 429 (``Error``) when it is rate-limited: writes per user, the token endpoint per address (with lockouts).

Every error is JSON, also for the endpoints whose success is a file (CSV, zip); see ``api.errors`` and
``config.errors``.
"""

from __future__ import annotations

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework.permissions import AllowAny

from api.schema_docs import apply_documentation
from api.throttles import LoginRateThrottle, WriteRateThrottle

ERROR = {
    "type": "object",
    "description": "An error the request as a whole met: ``detail`` says what happened.",
    "properties": {
        "detail": {"type": "string"},
        "locked_out": {
            "type": "boolean",
            "description": "429 of the token endpoint: the account or the address is locked out after failed "
            "logins (otherwise the rate limit: ``detail`` gives the seconds to wait).",
        },
    },
    "required": ["detail"],
}

VALIDATION_ERROR = {
    "type": "object",
    "description": "The request was refused as given, nothing was changed. Each field given wrong maps to its "
    "messages (a list of strings, or an object for a nested field); ``detail`` is about the request as a "
    "whole (a string or a list of strings), with ``file``, ``record`` and ``field`` naming the place in an "
    "uploaded collection, or ``problems`` listing what a save found.",
    "additionalProperties": True,
}

# gunicorn's own answer (an HTML page, before the app sees the request) to a request line longer than it reads
URI_TOO_LONG = {"type": "string", "description": "gunicorn's HTML page"}

DESCRIPTIONS = {
    "400": "Refused as given (a field, a parameter or the body's form)",
    "401": "No credentials, or a token that is unknown, revoked or expired",
    "403": "Not allowed: not this project's lead (or adjudicator), a membership ended, or not yet qualified",
    "404": "No such object for you (a project you are not a member of is not revealed), or no such page",
    "413": "The upload is larger than UPLOAD_MAX_MB",
    "414": "The URL is longer than the web server reads (gunicorn: a request line of 4094 bytes)",
    "415": "The body's content type is not one this operation reads",
    "429": "Too many requests: the rate limit (the seconds to wait in detail) or a login lockout",
}


class ErrorsDocumented(AutoSchema):
    """drf-spectacular's schema with each operation's error answers added (see the module's docstring)."""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation.setdefault("responses", {})
        self._component("Error", ERROR)  # also for the views' own ERROR_RESPONSE (api.schema_responses)
        for code in sorted(self._error_codes(operation)):
            if code == "414":
                responses[code] = {
                    "description": DESCRIPTIONS[code],
                    "content": {"text/html": {"schema": URI_TOO_LONG}},
                }
                continue
            schema = (
                self._component("ValidationError", VALIDATION_ERROR)
                if code == "400"
                else self._component("Error", ERROR)
            ).ref
            declared = responses.get(code, {}).get("content", {}).get("application/json")
            if declared is not None:  # the view's own body for this code (the import job's 400), or the usual one
                declared["schema"] = {"anyOf": [declared["schema"], schema]}
                continue
            responses[code] = {"description": DESCRIPTIONS[code], "content": {"application/json": {"schema": schema}}}
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def _component(self, name: str, schema: dict) -> ResolvedComponent:
        component = ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=schema)
        self.registry.register_on_missing(component)
        return component

    def _error_codes(self, operation: dict) -> set[str]:
        parameters = operation.get("parameters", [])
        places = {p["in"] for p in parameters}
        body = operation.get("requestBody")
        codes = set()
        if body is not None or "query" in places:
            codes.add("400")
        if body is not None:
            codes.add("415")
            if "multipart/form-data" in body.get("content", {}):
                codes.add("413")
        if not all(issubclass(p, AllowAny) for p in self.view.permission_classes):
            codes |= {"401", "403"}
        if places & {"path", "query"}:
            codes.add("414")
        if "path" in places or any(p["name"] == "page" and p["in"] == "query" for p in parameters):
            codes.add("404")
        throttles = tuple(self.view.throttle_classes)
        unsafe = self.method not in ("GET", "HEAD", "OPTIONS")
        if any(issubclass(t, LoginRateThrottle) for t in throttles) or (
            unsafe and any(issubclass(t, WriteRateThrottle) for t in throttles)
        ):
            codes.add("429")
        return codes


class DocumentedSchemaGenerator(SchemaGenerator):
    """drf-spectacular's generator, with the views' ``documented(...)`` (``api.schema_docs``) applied before it
    makes a view's schema (by then the enumeration of the endpoints has imported every view)."""

    def create_view(self, callback, method, request=None):
        apply_documentation()
        return super().create_view(callback, method, request)
