from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from annotator.access import can_create_projects, is_study_participant
from annotator.forms import AccountSettingsForm
from annotator.language import SESSION_KEY, supported_language
from annotator.selectors.projects import projects_for_user
from annotator.services.accounts import (
    account_findable,
    account_language,
    account_language_save,
    account_settings_save,
)


@login_required
def home(request):
    projects = projects_for_user(user=request.user)
    return render(
        request, "annotator/home.html", {"projects": projects, "can_create": can_create_projects(request.user)}
    )


@login_required
def account_settings(request):
    """The account's settings. A study participant chooses only the language: their account joins no other
    project and has no password or API token, so the page offers neither."""
    participant = is_study_participant(request.user)
    form = None
    if not participant:
        form = AccountSettingsForm(
            request.POST or None, initial={"findable_by_leads": account_findable(user=request.user)}
        )
    if request.method == "POST" and form is not None and form.is_valid():
        account_settings_save(user=request.user, findable_by_leads=form.cleaned_data["findable_by_leads"])
        messages.success(request, _("Saved your account settings."))
        return redirect("account_settings")
    return render(
        request,
        "registration/account_settings.html",
        {"form": form, "participant": participant, "chosen_language": account_language(user=request.user)},
    )


@login_required
def password_change(request):
    """The password change page, for accounts that sign in with a password (not a study's participant)."""
    if not request.user.has_usable_password():
        raise Http404("this account signs in without a password")
    return auth_views.PasswordChangeView.as_view()(request)


@require_POST
def language_set(request):
    """The language picker of every page: remembered in a cookie, and on the account of a signed-in user.

    An empty or unknown choice goes back to following the browser (``Accept-Language``)."""
    language = supported_language(request.POST.get("language"))
    target = request.POST.get("next") or request.headers.get("referer") or ""
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("home")
    response = HttpResponseRedirect(target)
    if request.user.is_authenticated:
        account_language_save(user=request.user, language=language)
        if language:
            request.session[SESSION_KEY] = language
        else:
            request.session.pop(SESSION_KEY, None)
    if language:
        translation.activate(language)
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE or request.is_secure(),
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    else:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME, path=settings.LANGUAGE_COOKIE_PATH)
    return response
