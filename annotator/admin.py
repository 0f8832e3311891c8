from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import F

from annotator import events
from annotator.models import (
    AccountSettings,
    Assignment,
    Criterion,
    Dialogue,
    GoldCount,
    Judgement,
    Membership,
    Post,
    Project,
    Reordering,
)
from annotator.services.accounts import tokens_revoke

# Judgements refer to a criterion's key, unit, scale and speaker and to a post's speaker and block,
# and saves cache them per process (annotator.selectors.structure): they are fixed once created.
CRITERION_STRUCTURE = ("project", "key", "unit", "values", "speaker")
POST_STRUCTURE = ("position", "speaker", "utterance_block")


class RequestsStatistics:
    """An edit here can change what the statistics count: ask for a recomputation, as a save in the app does.

    The dashboard's "Up to date" reads the requests (``evaluation.selectors.dashboard.freshness``),
    so a write that changes judgements, items, gold counts or members must make one. ``project_path``
    is the lookup from the model to its project (``"project"``, ``"dialogue__project"``, ...).
    """

    project_path = "project"

    def _request(self, queryset) -> None:
        for project_id in set(queryset.values_list(self.project_path, flat=True)):
            events.statistics_due(project_id=project_id)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        self._request(type(obj).objects.filter(pk=obj.pk))

    def delete_model(self, request, obj):
        self._request(type(obj).objects.filter(pk=obj.pk))
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        self._request(queryset)
        super().delete_queryset(request, queryset)


class CriterionInline(admin.TabularInline):
    model = Criterion
    extra = 0
    fields = ("position", "key", "label", "unit", "level", "speaker")
    readonly_fields = CRITERION_STRUCTURE[1:]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)
    fields = ("user", "role", "imported", "source_key", "rank", "active")


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "preset", "annotators_per_dialogue", "created_at")
    list_filter = ("preset",)
    search_fields = ("slug", "name")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [CriterionInline]


@admin.register(Membership)
class MembershipAdmin(RequestsStatistics, admin.ModelAdmin):
    list_display = ("user", "project", "role", "imported", "source_key", "active")
    list_filter = ("role", "imported", "active", "project")
    search_fields = ("user__username", "source_key")
    raw_id_fields = ("user",)


@admin.register(Criterion)
class CriterionAdmin(admin.ModelAdmin):
    list_display = ("key", "label", "project", "unit", "level", "speaker", "position")
    list_filter = ("unit", "level", "project")
    readonly_fields = CRITERION_STRUCTURE

    def has_add_permission(self, request) -> bool:
        return False  # criteria come from the project's preset


class PostInline(admin.TabularInline):
    model = Post
    extra = 0
    fields = ("position", "speaker", "utterance_block", "text")
    readonly_fields = POST_STRUCTURE

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # posts come from an import


@admin.register(Dialogue)
class DialogueAdmin(RequestsStatistics, admin.ModelAdmin):
    list_display = ("external_id", "project", "language", "position", "created_at")
    list_filter = ("project", "language")
    search_fields = ("external_id",)
    inlines = [PostInline]


@admin.register(Assignment)
class AssignmentAdmin(RequestsStatistics, admin.ModelAdmin):
    project_path = "dialogue__project"
    list_display = ("dialogue", "annotator", "status", "imported", "submitted_at", "seconds_spent")
    list_filter = ("status", "imported", "dialogue__project")
    search_fields = ("dialogue__external_id", "annotator__username")
    raw_id_fields = ("annotator", "dialogue")
    list_select_related = ("dialogue", "annotator")


@admin.register(Judgement)
class JudgementAdmin(RequestsStatistics, admin.ModelAdmin):
    project_path = "assignment__dialogue__project"
    list_display = ("assignment", "criterion", "unit", "value", "updated_at")
    list_filter = ("criterion__project", "criterion__key")
    raw_id_fields = ("assignment",)
    list_select_related = ("assignment__dialogue", "assignment__annotator", "criterion__project")

    # The statistics' fingerprint reads the items, not the judgements (evaluation.services.statistics):
    # an edit here counts as a save of the item, as judgements_save does.
    @staticmethod
    def _bump(assignment_ids) -> None:
        Assignment.objects.filter(pk__in=list(assignment_ids)).update(version=F("version") + 1)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        self._bump([obj.assignment_id])

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        self._bump([obj.assignment_id])

    def delete_queryset(self, request, queryset):
        assignment_ids = set(queryset.values_list("assignment_id", flat=True))
        super().delete_queryset(request, queryset)
        self._bump(assignment_ids)


@admin.register(Reordering)
class ReorderingAdmin(RequestsStatistics, admin.ModelAdmin):
    project_path = "assignment__dialogue__project"
    list_display = ("assignment", "updated_at")
    raw_id_fields = ("assignment",)


@admin.register(GoldCount)
class GoldCountAdmin(RequestsStatistics, admin.ModelAdmin):
    project_path = "dialogue__project"
    list_display = ("dialogue", "criterion", "unit", "value", "count", "n_annotators")
    list_filter = ("criterion__project", "criterion__key")
    raw_id_fields = ("dialogue",)


@admin.register(AccountSettings)
class AccountSettingsAdmin(admin.ModelAdmin):
    list_display = ("user", "findable_by_leads")
    search_fields = ("user__username",)


User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class UserWithTokensAdmin(UserAdmin):
    """Django's user admin with the "revoke API tokens" action (a password change revokes them too)."""

    actions = ["revoke_api_tokens"]

    @admin.action(description="Revoke the API tokens of the selected users")
    def revoke_api_tokens(self, request, queryset):
        revoked = sum(tokens_revoke(user_id=pk) for pk in queryset.values_list("pk", flat=True))
        self.message_user(request, f"Revoked {revoked} API token(s).", messages.SUCCESS)
