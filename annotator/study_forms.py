"""The lead's form for a study's settings (the model's validators apply, as in the API)."""

from django import forms

from annotator.models.studies import Study
from annotator.services.studies import SETTINGS_FIELDS


class StudyForm(forms.ModelForm):
    class Meta:
        model = Study
        fields = list(SETTINGS_FIELDS)
        widgets = {"consent_text": forms.Textarea(attrs={"rows": 5})}
        labels = {
            "id_parameter": "Participant id parameter (optional)",
            "completion_url": "Completion URL (optional)",
            "time_limit_minutes": "Time limit (minutes)",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["completion_code"].required = False
        self.fields["completion_code"].help_text += " Leave empty for a random code."

    def clean_completion_code(self):
        code = self.cleaned_data.get("completion_code") or ""
        return code or (self.instance.completion_code if self.instance.pk else "")
