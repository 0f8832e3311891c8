from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from annotator.access import can_create_projects
from annotator.forms import AccountSettingsForm
from annotator.models import Role
from annotator.selectors.projects import projects_for_user
from annotator.services.accounts import account_findable, account_settings_save


@login_required
def home(request):
    projects = list(projects_for_user(user=request.user))
    roles = dict(request.user.memberships.values_list("project_id", "role"))
    for project in projects:
        project.role = roles.get(project.pk)
        project.is_lead = project.role == Role.LEAD
    return render(
        request, "annotator/home.html", {"projects": projects, "can_create": can_create_projects(request.user)}
    )


@login_required
def account_settings(request):
    form = AccountSettingsForm(request.POST or None, initial={"findable_by_leads": account_findable(user=request.user)})
    if request.method == "POST" and form.is_valid():
        account_settings_save(user=request.user, findable_by_leads=form.cleaned_data["findable_by_leads"])
        messages.success(request, "Saved your account settings.")
        return redirect("account_settings")
    return render(request, "registration/account_settings.html", {"form": form})
