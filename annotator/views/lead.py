"""The lead's pages: create a project, guidelines and K, upload, members, assignment, progress, reopen."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotator.access import can_create_projects, lead_project
from annotator.forms import GuidelinesForm, MemberForm, ProjectCreateForm, UploadForm
from annotator.importers import InputError
from annotator.models import Assignment, Membership
from annotator.selectors.progress import project_progress
from annotator.services.accounts import member_tokens_revoke, membership_add_account
from annotator.services.assignment import assignments_create_balanced
from annotator.services.imports import dialogues_import_upload
from annotator.services.judgements import assignment_reopen
from annotator.services.projects import membership_remove, project_create_led


def _page(request, project, **forms):
    context = {
        "project": project,
        "guidelines_form": forms.get("guidelines_form") or GuidelinesForm(instance=project),
        "upload_form": forms.get("upload_form") or UploadForm(),
        "member_form": forms.get("member_form") or MemberForm(),
        "upload_error": forms.get("upload_error"),
        **project_progress(project=project),
    }
    return render(request, "annotator/lead_project.html", context, status=400 if len(forms) else 200)


@login_required
def project_new(request):
    if not can_create_projects(request.user):
        raise PermissionDenied("only staff and project leads can create projects")
    form = ProjectCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        project = project_create_led(
            lead=request.user,
            slug=form.cleaned_data["slug"],
            preset=form.cleaned_data["preset"],
            name=form.cleaned_data["name"],
            annotators_per_dialogue=form.cleaned_data["annotators_per_dialogue"],
        )
        messages.success(request, f"Created project {project.slug}.")
        return redirect("lead_project", slug=project.slug)
    return render(request, "annotator/project_new.html", {"form": form}, status=400 if form.errors else 200)


@login_required
def project_manage(request, slug: str):
    return _page(request, lead_project(request, slug))


@login_required
@require_POST
def guidelines(request, slug: str):
    project = lead_project(request, slug)
    form = GuidelinesForm(request.POST, instance=project)
    if not form.is_valid():
        return _page(request, project, guidelines_form=form)
    form.save()
    messages.success(request, "Saved the guidelines and the number of annotators per dialogue.")
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def upload(request, slug: str):
    project = lead_project(request, slug)
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, project, upload_form=form)
    try:
        report = dialogues_import_upload(
            project=project, uploaded=form.cleaned_data["file"], fmt=form.cleaned_data["format"]
        )
    except InputError as exc:
        return _page(request, project, upload_form=form, upload_error=f"Nothing was imported. {exc}")
    name = form.cleaned_data["file"].name
    messages.success(request, f"Imported {report.dialogues} dialogues ({report.judgements} judgements) from {name}.")
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def member_add(request, slug: str):
    project = lead_project(request, slug)
    form = MemberForm(request.POST)
    if not form.is_valid():
        return _page(request, project, member_form=form)
    username, role = form.cleaned_data["username"], form.cleaned_data["role"]
    try:
        membership_add_account(
            project=project, actor=request.user, username=username, password=form.cleaned_data["password"], role=role
        )
    except ValidationError as exc:
        for field, problems in exc.message_dict.items():
            form.add_error(field, problems)
        return _page(request, project, member_form=form)
    messages.success(request, f"{username} is now {role} of {project.slug}.")
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def member_remove(request, slug: str, user_id: int):
    project = lead_project(request, slug)
    if user_id != request.user.pk:  # a lead cannot remove themselves here
        membership_remove(project=project, user_id=user_id)
    messages.success(request, "Removed the member; run the assignment to hand their unfinished work to others.")
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def member_tokens(request, slug: str, user_id: int):
    """Revoke a member's API tokens (a lost laptop, a leaked script)."""
    project = lead_project(request, slug)
    try:
        revoked = member_tokens_revoke(project=project, user_id=user_id)
    except Membership.DoesNotExist:
        raise Http404("no such member") from None
    messages.success(request, f"Revoked {revoked} API token(s); the member asks for a new one with their password.")
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def assign(request, slug: str):
    project = lead_project(request, slug)
    try:
        report = assignments_create_balanced(project=project, seed=int(request.POST.get("seed") or 0))
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect("lead_project", slug=slug)
    messages.success(request, f"Created {report.created} assignments; handed back {report.handed_back}.")
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def reopen(request, slug: str, assignment_id: int):
    project = lead_project(request, slug)
    assignment = get_object_or_404(Assignment, pk=assignment_id, dialogue__project=project)
    reason = (request.POST.get("reason") or "").strip()[:500]
    assignment_reopen(assignment_id=assignment.pk, reason=reason)
    shown = f" with the reason: {reason}" if reason else ""
    messages.success(request, f"Reopened {assignment.dialogue.external_id} for {assignment.annotator.username}{shown}.")
    return redirect("lead_project", slug=slug)
