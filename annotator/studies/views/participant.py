"""A study's public pages: the link a recruiting platform sends its participants to, and the consent.

``/study/<token>/?PROLIFIC_PID=...`` finds or creates the participant for that id (new participants
are rate-limited per client address), signs them in and comes back to ``/study/<token>/``, which
then shows what the participant stands at: the consent text and guidelines, the next item, the
completion code (and the way back to the platform), or a page that explains why there is no work.

The first visit binds its browser to the participant with a signed cookie; a later visit with the
same id signs in only from that browser, or with the platform's per-session value of the first visit,
or with the participant's return code (``visit_binds``); the browser it signs in is then bound too.
"""

from __future__ import annotations

from contextlib import suppress

from django.conf import settings
from django.contrib.auth import login
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from annotator.models import Participant
from annotator.studies.selectors import (
    Stage,
    participant_of,
    participant_state,
    study_by_token,
    visit_binds,
    visit_ids,
)
from annotator.studies.services import StudyError, participant_enter, participant_start
from annotator.wording import guidelines_text
from config.throttling import ClientRateThrottle, CountedRate, rates_wait

MESSAGE = "annotator/studies/message.html"
SESSION_BACKEND = "django.contrib.auth.backends.ModelBackend"
BROWSER_COOKIE = "study-{study}"  # the participant this browser is bound to, signed (path /study/)
BROWSER_SALT = "annotator.views.study.browser"  # the module's old name, kept: a new salt would unbind every browser
BROWSER_MAX_AGE = 365 * 24 * 3600  # a study's time limit is at most a year


class NewParticipantThrottle(ClientRateThrottle):
    """New participants per client address (``STUDY_PARTICIPANTS_RATE``, e.g. ``20/hour``), counted in
    Django's cache; the address is ``config.client_address``'s (behind the proxy, the client's own)."""

    scope = "study_participants"

    def get_rate(self) -> str:
        return settings.STUDY_PARTICIPANTS_RATE


def _message(request, study, kind: str, status: int = 200, **extra):
    return render(request, MESSAGE, {"study": study, "kind": kind, **extra}, status=status)


@never_cache
@require_http_methods(["GET", "POST"])
def study_entry(request, token: str):
    """The study link. With a participant id: sign that participant in (creating them on the first visit)
    and come back without the query string; without one: the signed-in participant's page.

    Someone signed in with an ordinary account (a lead trying the link) is asked first, with a form
    (POST, CSRF-checked), so that a link opened by accident or planted elsewhere never signs them out."""
    study = study_by_token(token=token)
    if study is None:
        return _message(request, None, "unknown", status=404)
    ids = visit_ids(study=study, query=request.GET, raw_query=request.META.get("QUERY_STRING", ""))
    if ids.preview:
        return _message(request, study, "preview")
    if ids.invalid:
        return _message(request, study, "invalid_id", status=400, parameter=ids.parameter, undecodable=ids.undecodable)
    if ids.external_id is None:
        participant = participant_of(user=request.user, study=study)
        if participant is None:
            return _message(request, study, "no_id")
        return _participant_page(request, participant)
    if request.method == "GET" and _signed_in_as_someone_else(request):
        return _message(request, study, "signed_in", account=request.user.get_username())
    participant = Participant.objects.filter(study=study, external_id=ids.external_id).select_related("user").first()
    created = False
    if participant is None:
        if not study.is_open:
            return _message(request, study, Stage.CLOSED)
        throttle = NewParticipantThrottle()
        if not throttle.allow_request(request, None):
            return _message(request, study, "busy", status=429, wait=round(throttle.wait() or 60))
        try:
            entry = participant_enter(study=study, external_id=ids.external_id, platform=ids.platform)
        except StudyError as exc:
            return _message(request, study, exc.reason)
        participant, created = entry.participant, entry.created
    if request.user != participant.user:
        typed = request.POST.get("return_code", "") if request.method == "POST" else ""
        browser = _browser_participant(request, study)
        bound = created or visit_binds(participant=participant, browser_participant=browser, platform=ids.platform)
        if not bound and typed:
            wait = rates_wait(request, _return_code_limits(study))
            if wait is not None:
                minutes = max(1, round(wait / 60))
                return _message(request, study, "bound_elsewhere", status=429, code_limited=minutes)
            bound = visit_binds(participant=participant, browser_participant=browser, platform={}, return_code=typed)
        if not bound:
            return _message(request, study, "bound_elsewhere", status=403, code_refused=bool(typed))
        login(request, participant.user, backend=SESSION_BACKEND)
    response = redirect("study", token=token)
    _bind_browser(response, study, participant)
    return response


def _return_code_limits(study) -> list[CountedRate]:
    """Return codes typed per client address and per study (``RETURN_CODE_RATES``): a code cannot be guessed
    from one address, nor from many against one study."""
    rates = settings.RETURN_CODE_RATES
    return [
        CountedRate("return_code_client", rates["client"]),
        CountedRate("return_code_study", rates["study"], key=f"study-{study.pk}"),
    ]


def _browser_participant(request, study) -> int | None:
    """The participant this browser's signed cookie binds it to in ``study`` (None: none, or forged)."""
    value = request.get_signed_cookie(
        BROWSER_COOKIE.format(study=study.pk), default=None, salt=BROWSER_SALT, max_age=BROWSER_MAX_AGE
    )
    return int(value) if value and value.isdigit() else None


def _bind_browser(response, study, participant: Participant) -> None:
    response.set_signed_cookie(
        BROWSER_COOKIE.format(study=study.pk),
        str(participant.pk),
        salt=BROWSER_SALT,
        max_age=BROWSER_MAX_AGE,
        path=reverse("study", args=["-"])[: -len("-/")],  # every token's link: the cookie outlives a new link
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def _signed_in_as_someone_else(request) -> bool:
    """Signed in with an account that is no study participant (a participant just switches)."""
    user = request.user
    return user.is_authenticated and not Participant.objects.filter(user=user).exists()


def _participant_page(request, participant: Participant, *, consent_error: str = ""):
    study = participant.study
    state = participant_state(participant=participant)
    if state.stage == Stage.WORK:
        return redirect("annotate", assignment_id=state.next_item)
    if state.stage == Stage.CONSENT:
        return render(
            request,
            "annotator/studies/consent.html",
            {
                "study": study,
                "project": study.project,
                "participant": participant,
                "consent_error": consent_error,
                "guidelines": guidelines_text(study.project),  # as the item pages show them, in the reader's language
            },
            status=400 if consent_error else 200,
        )
    if state.stage == Stage.COMPLETE:
        return render(request, "annotator/studies/complete.html", {"study": study, "state": state})
    return _message(request, study, state.stage, state=state)


@never_cache
@require_POST
def study_start(request, token: str):
    """The consent form: the participant agrees and gets their items (once)."""
    study = study_by_token(token=token)
    if study is None:
        return _message(request, None, "unknown", status=404)
    participant = participant_of(user=request.user, study=study)
    if participant is None:
        return _message(request, study, "no_id")
    if participant.allocated_at is None and request.POST.get("consent") != "yes":
        return _participant_page(request, participant, consent_error=gettext("Tick the box to agree before you start."))
    with suppress(StudyError):  # closed meanwhile: the study's page says so
        participant_start(participant_id=participant.pk)
    return redirect("study", token=token)
