"""The lead's dashboard and the side-by-side view of one dialogue's judgements."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from annotator.access import lead_project
from annotator.models import Dialogue
from annotator.selectors.manage import natural_key
from annotator.selectors.progress import project_progress
from evaluation.handout.selectors import adaptive_section
from evaluation.selectors.dashboard import (
    dialogue_judgements_side_by_side,
    disputed_rows,
    freshness,
    value_labels,
)
from evaluation.selectors.dashboard_annotators import AnnotatorListing, annotators_page
from evaluation.selectors.kappa_maps import kappa_maps, reliability_chart_data
from evaluation.services.freshness import live_freshness_of, project_freshness
from evaluation.services.incremental import live_state_peek, live_state_read, statistics_with_running_figures
from evaluation.services.schedule import statistics_request


@login_required
def dashboard(request, slug: str):
    project = lead_project(request, slug)
    state = freshness(project=project)
    if state["stored"] is None:  # never computed: a worker computes them (asked once), the page says so meanwhile
        statistics_request(project_id=project.pk, changed=False)
        state = freshness(project=project)
        if state["stored"] is None:
            return render(request, "evaluation/dashboard_first.html", {"project": project, "freshness": state})
    payload, live = statistics_with_running_figures(project, state["stored"].payload)
    freshness_parts = project_freshness(project=project, state=state, live=live_state_peek(project))
    criteria = list(project.criteria.all())
    levels = {c.key: c.level for c in criteria}
    # PostgreSQL's jsonb does not keep key order: put criteria and values back in the project's order
    agreement_rows = [(c.key, payload["criteria"][c.key]) for c in criteria if c.key in payload["criteria"]]
    value_counts = {
        c.key: {v: payload["value_counts"][c.key].get(v, 0) for v in dict.fromkeys(c.allowed_values())}
        for c in criteria
        if c.key in payload.get("value_counts", {})
    }
    labels = value_labels(criteria)
    progress = project_progress(project=project)
    progress["per_annotator"].sort(key=lambda row: natural_key(row["annotator__username"]))
    uch = payload.get("uch") or {}
    return render(
        request,
        "evaluation/dashboard.html",
        {
            "project": project,
            "freshness": state,
            "freshness_parts": freshness_parts,
            "payload": payload,
            "live": live,
            "levels": levels,
            "agreement_rows": agreement_rows,
            "value_counts": value_counts,
            "labels": labels,
            "annotators": annotators_page(
                payload=payload,
                slug=project.slug,
                listing=AnnotatorListing.from_query(request.GET),
                page=request.GET.get("page"),
            ),
            "kappa_maps": kappa_maps(reliability=payload.get("reliability"), slug=project.slug),
            "reliability_chart": reliability_chart_data(reliability=payload.get("reliability"), slug=project.slug),
            "disputed": disputed_rows(payload, criteria),
            "uch": uch if uch.get("auch_mean") is not None else None,
            "progress": progress,
            "power_criteria": [c.key for c in criteria],
            "adaptive": adaptive_section(
                project=project, page=request.GET.get("items_page"), state=request.GET.get("item_state", "")
            ),
            # lists, not objects: a browser reorders integer-like keys such as "-2", "0", "2"
            "chart_data": {
                "agreement_order": [k for k, _v in agreement_rows],
                "values": {
                    k: {
                        "labels": [labels[k].get(v, v) for v in c],
                        "counts": list(c.values()),
                        "gold": [payload.get("gold", {}).get(k, {}).get("mean_distribution", {}).get(v) for v in c],
                    }
                    for k, c in value_counts.items()
                },
                "agreement": {
                    k: {
                        "fleiss": v.get("fleiss_kappa"),
                        "randolph": v.get("randolph_kappa"),
                        "alpha": v["krippendorff_alpha"].get(levels.get(k, "nominal"))
                        if levels.get(k) != "interval"
                        else v["krippendorff_alpha"].get("interval"),
                    }
                    for k, v in agreement_rows
                },
            },
        },
    )


@login_required
@require_POST
def recompute(request, slug: str):
    project = lead_project(request, slug)
    if statistics_request(project_id=project.pk, changed=False):
        messages.success(request, gettext("Recomputation scheduled; reload in a few seconds."))
    else:
        messages.info(
            request, gettext("A recomputation is already on its way, or the workers cannot be reached right now.")
        )
    return redirect("dashboard", slug=slug)


@login_required
def live_status(request, slug: str):
    """Whether the live figures are still being brought up to date (the dashboard asks while they are)."""
    state = live_state_read(lead_project(request, slug))
    live = live_freshness_of(state)
    return JsonResponse(
        {
            "stale": state.stale_since is not None,
            "stale_since": state.stale_since.isoformat() if state.stale_since else None,
            "built_at": state.built_at.isoformat() if state.built_at else None,
            "freshness": live.as_json(),
        }
    )


@login_required
def dialogue_judgements(request, slug: str, dialogue_id: int):
    project = lead_project(request, slug)
    dialogue = get_object_or_404(Dialogue, pk=dialogue_id, project=project)  # another project's id is a 404 too
    return render(
        request,
        "evaluation/dialogue_judgements.html",
        {"project": project, **dialogue_judgements_side_by_side(dialogue=dialogue)},
    )
