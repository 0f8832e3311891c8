from django import forms
from django.utils.translation import gettext, gettext_lazy

from annotator.models import K_MAX, K_MIN, Project, Role
from annotator.presets import PRESETS


def annotators_per_dialogue_field(**kwargs) -> forms.IntegerField:
    """K, with the same bounds on the creation page and the manage page."""
    return forms.IntegerField(
        min_value=K_MIN, max_value=K_MAX, label=gettext_lazy("Annotators per dialogue (K)"), **kwargs
    )


class ProjectCreateForm(forms.Form):
    name = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=80, help_text=gettext_lazy("Short name used in URLs and commands."))
    preset = forms.ChoiceField(choices=[(key, spec.label) for key, spec in PRESETS.items()])
    scheme_file = forms.FileField(
        required=False,
        label=gettext_lazy("Or a scheme file"),
        help_text=gettext_lazy(
            "YAML or JSON (see the documentation); given, it is the project's scheme instead of the preset."
        ),
    )
    annotators_per_dialogue = annotators_per_dialogue_field(
        required=False, help_text=gettext_lazy("Leave empty for the preset's default.")
    )

    def clean_slug(self):
        slug = self.cleaned_data["slug"]
        if Project.objects.filter(slug=slug).exists():
            raise forms.ValidationError(gettext("A project with this slug already exists."))
        return slug


class GuidelinesForm(forms.ModelForm):
    annotators_per_dialogue = annotators_per_dialogue_field(
        help_text=gettext_lazy("How many different annotators judge each dialogue.")
    )

    class Meta:
        model = Project
        fields = ["guidelines", "annotators_per_dialogue"]
        widgets = {"guidelines": forms.Textarea(attrs={"rows": 6})}


class UploadForm(forms.Form):
    FORMATS = [
        ("auto", "Detect"),
        ("stc3", "STC-3 / DialEval JSON"),
        ("dbdc", "DBDC3 *.log.json or zip"),
        ("nlpcc", "NLPCC xlsx"),
        ("jsonl", "JSON lines"),
        ("chat", "Chat transcripts (OpenAI messages, ShareGPT)"),
        ("pairwise", "Pairwise JSON lines"),
    ]
    file = forms.FileField()
    format = forms.ChoiceField(
        choices=FORMATS,
        initial="auto",
        help_text=gettext_lazy(
            "Detect imports the file only if its format is this project's own, JSON lines or chat transcripts."
        ),
    )


class MemberForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        help_text=gettext_lazy(
            "The exact username of an account whose owner agreed to be added by leads (on their Account page), or "
            "the username of a new account."
        ),
    )
    password = forms.CharField(
        required=False,
        widget=forms.PasswordInput,
        help_text=gettext_lazy("Only for a new account; leave empty to add an existing user."),
    )
    role = forms.ChoiceField(choices=Role.choices, initial=Role.ANNOTATOR)


class AccountSettingsForm(forms.Form):
    findable_by_leads = forms.BooleanField(
        required=False,
        label=gettext_lazy("Project leads may add me to their projects by my exact username"),
        help_text=gettext_lazy("Leads never see a list of accounts; they need your username, which you give them."),
    )


class InvitationAcceptForm(forms.Form):
    """The invited person's choice of username and password (checked by ``invitation_accept``)."""

    username = forms.CharField(max_length=150, label=gettext_lazy("Username"))
    password1 = forms.CharField(widget=forms.PasswordInput, label=gettext_lazy("Password"), strip=False)
    password2 = forms.CharField(widget=forms.PasswordInput, label=gettext_lazy("Password again"), strip=False)

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password1") != data.get("password2"):
            self.add_error("password2", gettext_lazy("The two passwords differ."))
        return data
