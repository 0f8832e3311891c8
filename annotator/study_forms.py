"""The lead's form for a study's settings (the model's validators apply, as in the API), with the
confirmations the server asks for: opening a study with no place, changing a running study's time limit."""

from django import forms
from django.utils.translation import gettext_lazy as _

from annotator.models.studies import Study
from annotator.services.studies import SETTINGS_FIELDS


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
            "id_parameter": "Participant id parameter (optional)",
            "completion_url": "Completion URL (optional)",
            "time_limit_minutes": "Time limit (minutes)",
        }

    def __init__(self, *args, confirm: tuple[str, ...] = (), **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.CONFIRMATIONS:
            if name not in confirm:
                del self.fields[name]
        self.fields["completion_code"].required = False
        self.fields["completion_code"].help_text += " Leave empty for a random code."

    def clean_completion_code(self):
        code = self.cleaned_data.get("completion_code") or ""
        return code or (self.instance.completion_code if self.instance.pk else "")
