"""Input and output shapes of the budget endpoint (``api.views.adaptive``)."""

from rest_framework import serializers

from annotator.models import K_MAX, K_MIN, StopRuleKind


class AdaptiveBudgetIO(serializers.Serializer):
    adaptive = serializers.BooleanField(required=False, help_text="Adaptive budget (true) or fixed K (false).")
    min_k = serializers.IntegerField(min_value=K_MIN, max_value=K_MAX, required=False)
    max_k = serializers.IntegerField(min_value=K_MIN, max_value=K_MAX, required=False)
    budget = serializers.IntegerField(
        min_value=0, max_value=2**31 - 1, required=False, help_text="Item-assignments in total; 0: no total cap."
    )
    stop_rule = serializers.ChoiceField(choices=StopRuleKind.choices, required=False)
    threshold = serializers.FloatField(min_value=0, required=False)


class BudgetStateOut(serializers.Serializer):
    open = serializers.IntegerField()
    stable = serializers.IntegerField()
    at_maximum = serializers.IntegerField()
    spent = serializers.IntegerField(help_text="Item-assignments given, unfinished ones included.")
    left = serializers.IntegerField(allow_null=True, help_text="Of the total budget; null without one.")


class AdaptiveBudgetOut(AdaptiveBudgetIO):
    items = BudgetStateOut(read_only=True, allow_null=True, help_text="Where the items stand (adaptive only).")
