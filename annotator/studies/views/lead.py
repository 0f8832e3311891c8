"""The lead's study pages: open a study, its settings and link, places left, participants (and CSV),
close and reopen, rotate the token, release expired items, grant or revoke a participant's API token."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from annotator.access import lead_project
from annotator.exporters.tables import table_download, table_file
from annotator.models import Participant, Study
from annotator.studies.forms import StudyForm
from annotator.studies.selectors import (
    opening_without_places,
    participants_table,
    study_participants,
    study_places,
)
from annotator.studies.services import (
    SETTINGS_FIELDS,
    StudyError,
    participant_token_grant,
    participant_token_revoke,
    studies_release_expired,
    study_create,
    study_set_open,
    study_token_rotate,
    study_update,
)


def _study(request, slug: str, study_id: int) -> Study:
    project = lead_project(request, slug)
    return get_object_or_404(Study.objects.select_related("project"), pk=study_id, project=project)


def study_link(request, study: Study) -> str:
    return request.build_absolute_uri(reverse("study", args=[study.token]))


@login_required
def study_list(request, slug: str):
    """The project's studies, and the form that opens a new one."""
    project = lead_project(request, slug)
    confirm = ("open_without_places",) if request.POST.get("open_without_places") else ()
    form = StudyForm(request.POST or None, initial={"name": f"{project.name} study"}, confirm=confirm)
    if request.method == "POST" and form.is_valid():
        study, form = _study_open_from(project, form)
        if study is not None:
            messages.success(
                request,
                gettext("Opened the study %(name)s: give its link to the recruiting platform.") % {"name": study.name},
            )
            return redirect("lead_study", slug=slug, study_id=study.pk)
    studies = [(study, study_places(study=study)) for study in project.studies.all()]
    return render(
        request,
        "annotator/studies/list.html",
        {"project": project, "form": form, "studies": studies},
        status=400 if form.errors else 200,
    )


def _study_open_from(project, form: StudyForm) -> tuple[Study | None, StudyForm]:
    """Open the study of a valid form; a study with no place opens only once the lead confirms (the form,
    refused, says so and shows the box), and a refused study says why on the form."""
    no_places = opening_without_places(
        project=project, items_per_participant=form.cleaned_data["items_per_participant"]
    )
    if no_places and not form.cleaned_data.get("open_without_places"):
        form = StudyForm(form.data, confirm=("open_without_places",))
        form.is_valid()
        form.add_error(None, no_places)
        return None, form
    try:
        return study_create(project=project, **{f: form.cleaned_data[f] for f in SETTINGS_FIELDS}), form
    except StudyError as exc:
        form.add_error(None, str(exc))
        return None, form


@login_required
def study_manage(request, slug: str, study_id: int):
    """A study: its link (with the query strings for Prolific and MTurk), settings, places, participants."""
    study = _study(request, slug, study_id)
    download = table_download(
        request, prefix=f"{study.project.slug}-study-{study.pk}", tables=[participants_table(study=study)]
    )
    if download is not None:
        return download
    confirm = ("confirm_time_limit",) if request.POST.get("confirm_time_limit") else ()
    form = StudyForm(request.POST or None, instance=study, confirm=confirm)
    if request.method == "POST" and form.is_valid():
        settings = {f: form.cleaned_data[f] for f in SETTINGS_FIELDS}
        try:
            study_update(study=study, confirm_time_limit=bool(form.cleaned_data.get("confirm_time_limit")), **settings)
        except StudyError as exc:  # a new time limit for participants at work: say whom it affects, and ask
            study.refresh_from_db()
            form = StudyForm(request.POST, instance=study, confirm=("confirm_time_limit",))
            form.is_valid()
            form.add_error(None, str(exc))
        else:
            messages.success(request, gettext("Saved the study's settings."))
            return redirect("lead_study", slug=slug, study_id=study.pk)
    if request.method == "POST":
        study.refresh_from_db()  # show the stored settings beside the refused form
    places = study_places(study=study)
    context = {
        "project": study.project,
        "study": study,
        "form": form,
        "link": study_link(request, study),
        "places": places,
        "no_places": None
        if places.full
        else opening_without_places(project=study.project, items_per_participant=study.items_per_participant),
        "participants": study_participants(study=study),
    }
    return render(request, "annotator/studies/manage.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def study_open(request, slug: str, study_id: int):
    study = _study(request, slug, study_id)
    is_open = request.POST.get("open") == "1"
    study_set_open(study=study, is_open=is_open)
    messages.success(request, "The study is open." if is_open else "The study is closed: no new participants.")
    return redirect("lead_study", slug=slug, study_id=study.pk)


@login_required
@require_POST
def study_rotate(request, slug: str, study_id: int):
    study = study_token_rotate(study=_study(request, slug, study_id))
    messages.success(
        request, gettext("The study has a new link; the old one no longer works. Update it on the platform.")
    )
    return redirect("lead_study", slug=slug, study_id=study.pk)


@login_required
@require_POST
def study_release(request, slug: str, study_id: int):
    study = _study(request, slug, study_id)
    released = studies_release_expired(project=study.project)
    messages.success(
        request,
        ngettext(
            "Released %(released)s unfinished item past the time limit.",
            "Released %(released)s unfinished items past the time limit.",
            released,
        )
        % {"released": released},
    )
    return redirect("lead_study", slug=slug, study_id=study.pk)


@login_required
def study_csv(request, slug: str, study_id: int):
    study = _study(request, slug, study_id)
    return table_file(participants_table(study=study), "csv", prefix=f"{study.project.slug}-study-{study.pk}")


@login_required
@require_POST
def participant_token(request, slug: str, study_id: int, participant_id: int):
    """Grant (``action=grant``) or revoke a participant's API token; a granted token is shown once here."""
    study = _study(request, slug, study_id)
    participant = get_object_or_404(Participant, pk=participant_id, study=study)
    if request.POST.get("action") == "grant":
        token = participant_token_grant(participant=participant)
        messages.success(
            request,
            gettext("API token for %(external_id)s: %(key)s")
            % {"external_id": participant.external_id, "key": token.key},
        )
    else:
        participant_token_revoke(participant=participant)
        messages.success(
            request, gettext("Revoked the API token of %(external_id)s.") % {"external_id": participant.external_id}
        )
    return redirect("lead_study", slug=slug, study_id=study.pk)
