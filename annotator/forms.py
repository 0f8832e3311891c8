from django import forms
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.sites.shortcuts import get_current_site
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
    preset = forms.ChoiceField(choices=lambda: [(key, spec.label) for key, spec in PRESETS.items()])
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
        fields = ["guidelines", "annotators_per_dialogue", "annotators_are"]
        widgets = {"guidelines": forms.Textarea(attrs={"rows": 6})}
        labels = {"annotators_are": gettext_lazy("Who annotated")}
        help_texts = {
            "annotators_are": gettext_lazy(
                "Sets the margin of the judges' alternative annotator test: 0.2 for experts, 0.15 for skilled "
                "annotators, 0.1 for crowd workers (Calderon et al. 2025). Crowd study participants count as crowd "
                "workers when this is not stated."
            )
        }


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


class PasswordResetEveryAddressForm(PasswordResetForm):
    """Django's reset form, except that an address without an account gets a mail too, saying so: the request does
    the same work either way (a rendered message, one mail sent), so how long it takes tells nobody whether the
    address has an account, and the page already answers alike."""

    def save(self, **kwargs) -> None:
        email = self.cleaned_data["email"]
        if next(iter(self.get_users(email)), None) is not None:
            return super().save(**kwargs)
        domain = kwargs.get("domain_override") or get_current_site(kwargs.get("request")).domain
        context = {"email": email, "domain": domain, "protocol": "https" if kwargs.get("use_https") else "http"}
        subject = kwargs.get("subject_template_name", "registration/password_reset_subject.txt")
        self.send_mail(subject, "registration/password_reset_no_account.txt", context, kwargs.get("from_email"), email)
        return None
