from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from annotator.access import can_create_projects
from annotator.models import Role
from annotator.selectors.projects import projects_for_user


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
