"""The lead's form for a study's settings (the model's validators apply, as in the API), with the
confirmations the server asks for: opening a study with no place, changing a running study's time limit."""

from django import forms
from django.utils.translation import gettext_lazy as _

from annotator.studies.models import Study
from annotator.studies.services import SETTINGS_FIELDS


class StudyForm(forms.ModelForm):
    """``confirm`` names the confirmation boxes to show (none unless the server asked for one)."""

    open_without_places = forms.BooleanField(required=False, label=_("Open the study anyway, with no place"))
    confirm_time_limit = forms.BooleanField(
        required=False, label=_("Change the time limit, also for the participants at work")
    )
    CONFIRMATIONS = ("open_without_places", "confirm_time_limit")

    class Meta:
        model = Study
        fields = list(SETTINGS_FIELDS)
        widgets = {"consent_text": forms.Textarea(attrs={"rows": 5})}
        labels = {
            "name": _("Name"),
            "consent_text": _("Consent text"),
            "items_per_participant": _("Items per participant"),
            "id_parameter": _("Participant id parameter (optional)"),
            "completion_code": _("Completion code"),
            "completion_url": _("Completion URL (optional)"),
            "time_limit_minutes": _("Time limit (minutes)"),
        }
        help_texts = {
            "consent_text": _("Shown with the guidelines before any work."),
            "time_limit_minutes": _(
                "After this many minutes from the start, a participant's unfinished items go to others."
            ),
            "id_parameter": _(
                "A query parameter of your own that carries the participant id (besides PROLIFIC_PID, workerId and "
                "participant)."
            ),
            "completion_code": _(
                "Shown to a participant who finished (use the platform's code, e.g. Prolific's). Leave empty for a "
                "random code."
            ),
            "completion_url": _(
                "Where a participant who finished is sent, e.g. "
                "https://app.prolific.com/submissions/complete?cc={code}; {code} and {participant} are filled in."
            ),
        }

    def __init__(self, *args, confirm: tuple[str, ...] = (), **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.CONFIRMATIONS:
            if name not in confirm:
                del self.fields[name]
        self.fields["completion_code"].required = False

    def clean_completion_code(self):
        code = self.cleaned_data.get("completion_code") or ""
        return code or (self.instance.completion_code if self.instance.pk else "")
