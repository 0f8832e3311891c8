"""The lead's hand-out forms, parts of the project's page: the assignment run (K annotators per item, balanced
loads) and the budget per item (fixed K or adaptive, ``templates/annotator/handout/_adaptive_budget.html``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from annotator.access import lead_project
from annotator.handout.selectors.adaptive import adaptive_gold_rows
from annotator.handout.services.adaptive import adaptive_budget_update
from annotator.handout.services.bulk import assignments_create_balanced
from annotator.selectors.manage import assignment_shortfall


@login_required
@require_POST
def assign(request, slug: str):
    project = lead_project(request, slug)
    try:
        report = assignments_create_balanced(project=project, seed=int(request.POST.get("seed") or 0))
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect("lead_project", slug=slug)
    shortfall = assignment_shortfall(project=project)
    still = f" {shortfall.explanation()}" if shortfall.short else ""
    messages.success(
        request,
        gettext("Created %(created)s assignments; handed back %(handed_back)s unfinished items.%(still)s")
        % {"created": report.created, "handed_back": report.handed_back, "still": still},
    )
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def adaptive_budget_save(request, slug: str):
    """Fixed K or an adaptive budget (``annotator.handout.services.adaptive``)."""
    project = lead_project(request, slug)
    post = request.POST
    try:
        keys = [row["key"] for row in adaptive_gold_rows(project)]
        adaptive_budget_update(
            project=project,
            adaptive=post.get("mode") == "adaptive",
            min_k=int(post.get("min_k", "")),
            max_k=int(post.get("max_k", "")),
            budget=int(post.get("budget", "0") or 0),
            stop_rule=post.get("stop_rule", ""),
            threshold=float(post.get("threshold", "")),
            label_gold={
                key: float(post.get(f"label_threshold_{key}", "") or 0)
                for key in keys
                if post.get(f"gold_{key}") == "label"
            },
            delta=float(post.get("delta", "")),
        )
        messages.success(request, gettext("Saved the budget per item."))
    except ValueError:
        messages.error(
            request,
            gettext("Give whole numbers for the annotators and the budget, and numbers as the threshold and delta."),
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    return redirect(f"{reverse('lead_project', args=[slug])}#adaptive-budget")
