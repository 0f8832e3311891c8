from django.contrib.auth import views as auth_views
from django.urls import path

from annotator.views import annotate, home, lead, quality

urlpatterns = [
    path("", home.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    # annotators
    path("projects/<slug:slug>/queue/", annotate.queue, name="queue"),
    path("items/<int:assignment_id>/", annotate.annotate, name="annotate"),
    path("items/<int:assignment_id>/draft/", annotate.draft, name="draft"),
    path("items/<int:assignment_id>/submit/", annotate.submit, name="submit"),
    path("items/<int:assignment_id>/feedback/", quality.training_feedback_page, name="training_feedback"),
    # leads
    path("projects/new/", lead.project_new, name="project_new"),
    path("projects/<slug:slug>/manage/", lead.project_manage, name="lead_project"),
    path("projects/<slug:slug>/manage/guidelines/", lead.guidelines, name="lead_guidelines"),
    path("projects/<slug:slug>/manage/upload/", lead.upload, name="lead_upload"),
    path("projects/<slug:slug>/manage/members/", lead.member_add, name="lead_member_add"),
    path("projects/<slug:slug>/manage/members/<int:user_id>/remove/", lead.member_remove, name="lead_member_remove"),
    path("projects/<slug:slug>/manage/assign/", lead.assign, name="lead_assign"),
    path("projects/<slug:slug>/manage/items/<int:assignment_id>/reopen/", lead.reopen, name="lead_reopen"),
    # leads: quality control (controls, training and qualification)
    path("projects/<slug:slug>/quality/", quality.quality_page, name="quality"),
    path("projects/<slug:slug>/quality/settings/", quality.quality_settings_save, name="quality_settings"),
    path("projects/<slug:slug>/quality/items/", quality.quality_pick, name="quality_pick"),
    path("projects/<slug:slug>/quality/items/<int:dialogue_id>/", quality.quality_item_edit, name="quality_item"),
    path(
        "projects/<slug:slug>/quality/items/<int:dialogue_id>/remove/",
        quality.quality_item_delete,
        name="quality_item_remove",
    ),
    path("projects/<slug:slug>/quality/upload/", quality.quality_upload, name="quality_upload"),
    path("projects/<slug:slug>/quality/mix/", quality.quality_mix, name="quality_mix"),
    path("projects/<slug:slug>/quality/admit/", quality.qualification_admit_page, name="qualification_admit"),
]
