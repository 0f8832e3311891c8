"""Input and output shapes of the budget endpoint (``api.handout.views``)."""

from rest_framework import serializers

from annotator.models import DELTA_MAX, DELTA_MIN, K_MAX, K_MIN, StopRuleKind


class AdaptiveBudgetIO(serializers.Serializer):
    adaptive = serializers.BooleanField(required=False, help_text="Adaptive budget (true) or fixed K (false).")
    min_k = serializers.IntegerField(min_value=K_MIN, max_value=K_MAX, required=False)
    max_k = serializers.IntegerField(min_value=K_MIN, max_value=K_MAX, required=False)
    budget = serializers.IntegerField(
        min_value=0, max_value=2**31 - 1, required=False, help_text="Item-assignments in total; 0: no total cap."
    )
    stop_rule = serializers.ChoiceField(choices=StopRuleKind.choices, required=False)
    threshold = serializers.FloatField(min_value=0, required=False)
    label_gold = serializers.DictField(
        child=serializers.FloatField(min_value=0, max_value=1),
        required=False,
        help_text="The criteria whose gold is a label: criterion key -> the share the majority label needs (0: the "
        "plain majority). The others have distribution gold.",
    )
    delta = serializers.FloatField(
        min_value=DELTA_MIN,
        max_value=DELTA_MAX,
        required=False,
        help_text="Label gold: a unit stops once its label differs from its label at max_k with probability at most "
        "delta.",
    )


class BudgetStateOut(serializers.Serializer):
    open = serializers.IntegerField()
    stable = serializers.IntegerField()
    at_maximum = serializers.IntegerField()
    spent = serializers.IntegerField(help_text="Item-assignments given, unfinished ones included.")
    left = serializers.IntegerField(allow_null=True, help_text="Of the total budget; null without one.")


class LabelSettlementOut(serializers.Serializer):
    units = serializers.IntegerField(help_text="Units with a label.")
    settled = serializers.IntegerField(help_text="Units whose label will not change with probability 1 - delta.")
    delta = serializers.FloatField()
    threshold = serializers.FloatField(help_text="The share the majority label needs.")
    expected_error = serializers.FloatField(
        allow_null=True, help_text="The mean change probability of the settled units: the rule's expected error rate."
    )
    prior = serializers.ListField(child=serializers.FloatField(), help_text="The fitted Dirichlet prior, scale order.")


class AdaptiveBudgetOut(AdaptiveBudgetIO):
    items = BudgetStateOut(read_only=True, allow_null=True, help_text="Where the items stand (adaptive only).")
    labels = serializers.DictField(
        child=LabelSettlementOut(),
        read_only=True,
        allow_null=True,
        help_text="Per label-gold criterion, its units settled so far (adaptive only).",
    )
