"""Errors as JSON that name the field: domain errors become 400s with their file/record/field."""

from rest_framework import status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from annotator.input_errors import input_error_text
from annotator.services.judgements import ConflictError, ItemClosed, SubmissionError
from scoring.errors import InputError


def exception_handler(exc, context):
    if isinstance(exc, InputError):
        return Response(
            {
                "detail": input_error_text(exc),
                "file": exc.file.rsplit("/", 1)[-1],
                "record": exc.record,
                "field": exc.field,
            },
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, ConflictError):
        return Response(
            {
                "detail": str(exc),
                "problems": exc.problems,
                "conflicts": [
                    {"criterion": c.criterion, "unit": c.unit, "stored": c.stored, "given": c.given}
                    for c in exc.conflicts
                ],
                "version": exc.version,
            },
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, ItemClosed):  # a study participant's save after their time (and its grace)
        return Response({"detail": str(exc), "code": exc.code}, status=status.HTTP_410_GONE)
    if isinstance(exc, SubmissionError):
        return Response({"detail": str(exc), "problems": exc.problems}, status=status.HTTP_400_BAD_REQUEST)
    return drf_exception_handler(exc, context)


class FormatIsAParameter(DefaultContentNegotiation):
    """For endpoints where ``?format=`` chooses the exported file, not DRF's renderer."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
