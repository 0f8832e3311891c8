"""The lead's comparison settings: names revealed, active pairs, budget and tie model, or a new comparison
criterion. The form is part of the project's page (``templates/annotator/pairwise/_settings.html``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from annotator.access import lead_project
from annotator.pairwise.services.settings import comparison_criterion_add, pairwise_settings_save


@login_required
@require_POST
def pairwise_settings(request, slug: str):
    """A comparison project's settings, or a new comparison criterion (``services.settings``)."""
    project = lead_project(request, slug)
    try:
        if request.POST.get("action") == "criterion":
            comparison_criterion_add(
                project=project,
                key=request.POST.get("key", "").strip(),
                label=request.POST.get("label", ""),
                question=request.POST.get("question", ""),
            )
            messages.success(request, gettext("Added the criterion."))
        else:
            budget = request.POST.get("vote_budget", "").strip()
            pairwise_settings_save(
                project=project,
                reveal_systems=request.POST.get("reveal_systems") == "on",
                active_pairs=request.POST.get("active_pairs") == "on",
                vote_budget=int(budget) if budget.isdigit() else None,
                ties=request.POST.get("ties", "half"),
            )
            messages.success(request, gettext("Saved the comparison settings."))
    except ValueError as exc:
        messages.error(request, str(exc))
    return redirect(f"{reverse('lead_project', args=[slug])}#pairwise-settings")
