"""The project's budget per item over REST: fixed K or adaptive (``annotator.handout.services.adaptive``); leads
only."""

from __future__ import annotations

from django.core.exceptions import ValidationError as ModelValidationError
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead
from annotator.handout.selectors.adaptive import adaptive_settings, adaptive_status, label_settlement
from annotator.handout.services.adaptive import SETTINGS_FIELDS, adaptive_budget_update
from api.handout import serializers as a
from api.schema_docs import documented


def _out(settings) -> dict:
    body = {name: getattr(settings, name) for name in SETTINGS_FIELDS}
    body["items"] = body["labels"] = None
    if settings.adaptive:
        status = adaptive_status(settings.project, settings)
        body["items"] = {**status.state_counts(), "spent": status.spent, "left": status.left}
        body["labels"] = {
            key: {
                "units": found.units,
                "settled": found.settled,
                "delta": found.delta,
                "threshold": found.threshold,
                "expected_error": found.expected_error,
                "prior": list(found.alpha),
            }
            for key, found in label_settlement(status).items()
        }
    return body


class AdaptiveBudgetView(APIView):
    """The budget per item (GET, with where the items stand); change it (PATCH)."""

    permission_classes = [IsProjectLead]

    @documented(responses=a.AdaptiveBudgetOut)
    def get(self, request, slug: str):
        return Response(a.AdaptiveBudgetOut(_out(adaptive_settings(request.project))).data)

    @documented(request=a.AdaptiveBudgetIO, responses=a.AdaptiveBudgetOut)
    def patch(self, request, slug: str):
        given = a.AdaptiveBudgetIO(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            settings = adaptive_budget_update(project=request.project, **given.validated_data)
        except ModelValidationError as exc:
            problems = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
            raise ValidationError(problems) from None
        return Response(a.AdaptiveBudgetOut(_out(settings)).data)
