from django.conf import settings
from django.contrib.auth import views as auth_views
from django.urls import include, path

import annotator.converters  # noqa: F401  (registers <id:...>)
from annotator.views import annotate, home, lead, people, quality, scheme, webhooks

urlpatterns = [
    path("", home.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", home.password_change, name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("accounts/settings/", home.account_settings, name="account_settings"),
    # password reset by email (Django's views, the site's templates in registration/)
    path("accounts/password/reset/", people.PasswordReset.as_view(), name="password_reset"),
    path("accounts/password/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    # invitations by email: the invited person's one-time link
    path("invitations/<str:token>/", people.accept, name="invitation_accept"),
    path("language/", home.language_set, name="set_language"),
    # annotators
    path("projects/<slug:slug>/queue/", annotate.queue, name="queue"),
    path("items/<id:assignment_id>/", annotate.annotate, name="annotate"),
    path("items/<id:assignment_id>/draft/", annotate.draft, name="draft"),
    path("items/<id:assignment_id>/submit/", annotate.submit, name="submit"),
    # leads
    path("projects/new/", lead.project_new, name="project_new"),
    path("projects/<slug:slug>/manage/", lead.project_manage, name="lead_project"),
    path("projects/<slug:slug>/manage/guidelines/", lead.guidelines, name="lead_guidelines"),
    path("projects/<slug:slug>/manage/wording/", lead.wording, name="lead_wording"),
    path("projects/<slug:slug>/manage/scheme/", scheme.scheme_page, name="lead_scheme"),
    path("projects/<slug:slug>/manage/upload/", lead.upload, name="lead_upload"),
    path("projects/<slug:slug>/manage/imports/<int:batch_id>/", lead.import_status, name="lead_import_status"),
    path("projects/<slug:slug>/manage/imports/<int:batch_id>/remove/", lead.import_remove, name="lead_import_remove"),
    path("projects/<slug:slug>/manage/members/", lead.member_add, name="lead_member_add"),
    path("projects/<slug:slug>/manage/members/<id:user_id>/remove/", lead.member_remove, name="lead_member_remove"),
    path(
        "projects/<slug:slug>/manage/members/<id:user_id>/tokens/revoke/",
        lead.member_tokens,
        name="lead_member_tokens",
    ),
    path("projects/<slug:slug>/manage/invitations/", people.invite, name="lead_invite"),
    path(
        "projects/<slug:slug>/manage/invitations/<int:invitation_id>/withdraw/",
        people.invitation_remove,
        name="lead_invitation_withdraw",
    ),
    path("projects/<slug:slug>/manage/sso-groups/", people.sso_groups, name="lead_sso_groups"),
    path("", include("annotator.handout.urls")),
    path("", include("annotator.pairwise.urls")),
    path("projects/<slug:slug>/manage/items/<id:assignment_id>/reopen/", lead.reopen, name="lead_reopen"),
    # crowdsourced studies: the public link, and the lead's pages
    path("", include("annotator.studies.urls")),
    # leads: webhooks
    path("projects/<slug:slug>/manage/webhooks/", webhooks.webhooks_page, name="lead_webhooks"),
    path(
        "projects/<slug:slug>/manage/webhooks/<id:webhook_id>/remove/",
        webhooks.webhook_remove,
        name="lead_webhook_remove",
    ),
    path(
        "projects/<slug:slug>/manage/webhooks/<id:webhook_id>/active/",
        webhooks.webhook_active,
        name="lead_webhook_active",
    ),
    path("projects/<slug:slug>/manage/webhooks/<id:webhook_id>/test/", webhooks.webhook_ping, name="lead_webhook_test"),
    path(
        "projects/<slug:slug>/manage/webhooks/<id:webhook_id>/deliveries/<id:delivery_id>/again/",
        webhooks.delivery_again,
        name="lead_webhook_again",
    ),
    path("items/<id:assignment_id>/feedback/", quality.training_feedback_page, name="training_feedback"),
    # leads: quality control (controls, training and qualification)
    path("projects/<slug:slug>/quality/", quality.quality_page, name="quality"),
    path("projects/<slug:slug>/quality/settings/", quality.quality_settings_save, name="quality_settings"),
    path("projects/<slug:slug>/quality/items/", quality.quality_pick, name="quality_pick"),
    path("projects/<slug:slug>/quality/items/<id:dialogue_id>/", quality.quality_item_edit, name="quality_item"),
    path(
        "projects/<slug:slug>/quality/items/<id:dialogue_id>/remove/",
        quality.quality_item_delete,
        name="quality_item_remove",
    ),
    path("projects/<slug:slug>/quality/upload/", quality.quality_upload, name="quality_upload"),
    path("projects/<slug:slug>/quality/mix/", quality.quality_mix, name="quality_mix"),
    path("projects/<slug:slug>/quality/admit/", quality.qualification_admit_page, name="qualification_admit"),
]

if settings.OIDC_ENABLED:  # single sign-on: /oidc/authenticate/ and the provider's return, /oidc/callback/
    urlpatterns.append(path("oidc/", include("mozilla_django_oidc.urls")))
