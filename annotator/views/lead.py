"""The lead's pages: create a project, guidelines and K, imports, members, assignment, progress, reopen."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from annotator.access import can_create_projects, lead_project
from annotator.exporters import AGGREGATIONS, export_formats_of
from annotator.exporters.parquet import ParquetUnavailable, parquet_check
from annotator.exporters.tables import DownloadTable, table_download
from annotator.forms import GuidelinesForm, MemberForm, ProjectCreateForm, UploadForm
from annotator.handout.selectors.adaptive import adaptive_gold_rows, adaptive_settings, replay_figures
from annotator.input_errors import input_error_text
from annotator.models import Assignment, AssignmentStatus, ImportBatch, ImportStatus, Membership, StopRuleKind
from annotator.pairwise.selectors import pairwise_settings as pairwise_settings_of
from annotator.presets.document import scheme_read
from annotator.presets.of_project import project_scheme
from annotator.selectors.imports import (
    import_batch_contents,
    import_batch_status,
    import_batches_of,
    import_batches_recent,
)
from annotator.selectors.invitations import invitations_open
from annotator.selectors.manage import (
    ItemFilters,
    assignment_shortfall,
    items_filtered,
    items_page,
    manage_overview,
    member_removal_message,
    member_work,
)
from annotator.services.accounts import member_tokens_revoke, membership_add_account
from annotator.services.import_batches import (
    ImportBatchError,
    import_batch_create,
    import_batch_remove,
)
from annotator.services.judgements import assignment_reopen
from annotator.services.projects import (
    membership_remove,
    project_create_led,
    project_settings_update,
    project_wording_save,
)
from annotator.wording import WORDING_LANGUAGES, criterion_wording, guidelines_text, scheme_label
from scoring.errors import InputError


def _page(request, project, *, upload_error: str | None = None, **forms):
    filters = ItemFilters.from_query(request.GET)
    overview = manage_overview(project=project)
    batches = import_batches_recent(project=project)
    watched = request.GET.get("import", "")
    running = next(
        (b for b in batches if str(b.pk) == watched or b.status in (ImportStatus.PENDING, ImportStatus.RUNNING)),
        None,
    )
    context = {
        "project": project,
        "scheme_label": scheme_label(project),
        "guidelines_form": forms.get("guidelines_form") or GuidelinesForm(instance=project),
        "upload_form": forms.get("upload_form") or UploadForm(),
        "member_form": forms.get("member_form") or MemberForm(),
        "upload_error": upload_error,
        "batches": batches,
        "watched": import_batch_status(batch=running) if running else None,
        "items": items_page(project=project, filters=filters, page=request.GET.get("page")),
        "filters": filters,
        "filter_query": filters.as_query(),
        "statuses": AssignmentStatus.choices,
        "pairwise": pairwise_settings_of(project) if project_scheme(project).comparison else None,
        "adaptive": adaptive_settings(project),
        "adaptive_gold": adaptive_gold_rows(project),
        "replay_figures": replay_figures(),
        "stop_rules": StopRuleKind.choices,
        **_exports(project),
        "invitations": invitations_open(project=project),
        **overview,
    }
    status = 400 if forms or upload_error else 200
    return render(request, "annotator/lead_project.html", context, status=status)


def _exports(project) -> dict:
    """What the page's export section offers: the formats that fit the preset, the aggregations, and Parquet
    (or, without pyarrow, how to enable it)."""
    try:
        parquet_check()
        missing = ""
    except ParquetUnavailable as exc:
        missing = str(exc)
    return {
        "export_formats": export_formats_of(project),
        "aggregations": AGGREGATIONS,
        "parquet_available": not missing,
        "parquet_missing": missing,
    }


@login_required
def project_new(request):
    if not can_create_projects(request.user):
        raise PermissionDenied(gettext("only staff and project leads can create projects"))
    form = ProjectCreateForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["scheme_file"]
        try:
            scheme = None if upload is None else scheme_read(upload.read(), upload.name)
            project = project_create_led(
                lead=request.user,
                slug=form.cleaned_data["slug"],
                preset=None if scheme is not None else form.cleaned_data["preset"],
                scheme=scheme,
                name=form.cleaned_data["name"],
                annotators_per_dialogue=form.cleaned_data["annotators_per_dialogue"],
            )
        except InputError as exc:
            form.add_error("scheme_file", input_error_text(exc))
        except ValueError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, gettext("Created project %(slug)s.") % {"slug": project.slug})
            return redirect("lead_project", slug=project.slug)
    return render(request, "annotator/project_new.html", {"form": form}, status=400 if form.errors else 200)


@login_required
def project_manage(request, slug: str):
    project = lead_project(request, slug)
    download = table_download(request, prefix=project.slug, tables=_manage_tables(project, request))
    return download or _page(request, project)


IMPORT_COLUMNS = (
    "id", "created_at", "created_by", "files", "format", "status", "dialogues_written", "judgements", "error",
    "removed_at",
)  # fmt: skip


def _manage_tables(project, request) -> list[DownloadTable]:
    """The manage page's tables as downloads: the items (as filtered), progress per annotator, imports, members."""
    filters = ItemFilters.from_query(request.GET)

    def items():
        for a in items_filtered(project=project, filters=filters).iterator(chunk_size=2000):
            yield {
                "dialogue": a.dialogue.external_id,
                "annotator": a.annotator.username,
                "status": a.status,
                "seconds_spent": a.seconds_spent,
                "submitted_at": a.submitted_at,
                "reopened_at": a.reopened_at,
                "reopen_reason": a.reopen_reason,
            }

    def progress():
        for row in manage_overview(project=project)["per_annotator"]:
            yield {"annotator": row["annotator__username"], **row}

    def imports():
        for b in import_batches_of(project=project):
            yield {
                "id": b.pk,
                "created_at": b.created_at,
                "created_by": b.created_by.username if b.created_by else "",
                "files": b.file_names,
                "format": b.format or b.requested_format,
                "status": b.status,
                "dialogues_written": b.dialogues_written,
                "judgements": b.judgements,
                "error": b.error,
                "removed_at": b.removed_at,
            }

    def members():
        for m in manage_overview(project=project)["members"]:
            yield {"username": m.user.username, "role": m.role, "active": m.active}

    return [
        DownloadTable(
            "items",
            ("dialogue", "annotator", "status", "seconds_spent", "submitted_at", "reopened_at", "reopen_reason"),
            items,
        ),
        DownloadTable("progress", ("annotator", "assigned", "submitted", "in_progress", "seconds"), progress),
        DownloadTable("imports", IMPORT_COLUMNS, imports),
        DownloadTable("members", ("username", "role", "active"), members),
    ]


@login_required
def wording(request, slug: str):
    """Each language's wording of the guidelines and questions; empty fields show the preset's translation,
    else English (``annotator.wording``)."""
    project = lead_project(request, slug)
    language = request.POST.get("language") or request.GET.get("language") or WORDING_LANGUAGES[0]
    if language not in WORDING_LANGUAGES:
        raise Http404("no such wording language")
    criteria = list(project.criteria.all())
    if request.method == "POST":
        project_wording_save(
            project=project,
            language=language,
            guidelines=request.POST.get("guidelines", ""),
            questions={c.key: request.POST.get(f"q:{c.key}", "") for c in criteria},
        )
        messages.success(request, gettext("Saved the wording of the guidelines and questions."))
        return redirect(f"{reverse('lead_wording', args=[slug])}?language={language}")
    own = (project.wordings or {}).get(language) or {}
    rows = [
        {
            "criterion": c,
            "own": own.get("questions", {}).get(c.key, ""),
            "shown": criterion_wording(project, c, language).question,
        }
        for c in criteria
    ]
    return render(
        request,
        "annotator/wording.html",
        {
            "project": project,
            "language": language,
            "languages": [(code, name) for code, name in settings.LANGUAGES if code in WORDING_LANGUAGES],
            "own_guidelines": own.get("guidelines", ""),
            "shown_guidelines": guidelines_text(project, language),
            "rows": rows,
        },
    )


@login_required
@require_POST
def guidelines(request, slug: str):
    project = lead_project(request, slug)
    form = GuidelinesForm(request.POST, instance=project)
    if not form.is_valid():
        return _page(request, project, guidelines_form=form)
    project_settings_update(
        project=project,
        guidelines=form.cleaned_data["guidelines"],
        annotators_per_dialogue=form.cleaned_data["annotators_per_dialogue"],
        annotators_are=form.cleaned_data["annotators_are"],
    )
    messages.success(request, gettext("Saved the guidelines and the number of annotators per dialogue."))
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def upload(request, slug: str):
    """Keep the file as an import job; the page then follows its progress (``import_status``), which a worker
    makes (a test that runs its tasks in the request sees the outcome at once)."""
    project = lead_project(request, slug)
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, project, upload_form=form)
    batch = import_batch_create(
        project=project, user=request.user, uploaded=form.cleaned_data["file"], fmt=form.cleaned_data["format"]
    )
    batch.refresh_from_db()
    state = import_batch_status(batch=batch)
    if batch.status == ImportStatus.FAILED:
        return _page(request, project, upload_form=form, upload_error=state["message"])
    if batch.status == ImportStatus.DONE:
        messages.success(request, state["message"])
    return redirect(f"{reverse('lead_project', args=[slug])}?import={batch.pk}#upload-heading")


def _batches(project):
    return ImportBatch.objects.filter(project=project).defer("source").select_related("created_by")


@login_required
@require_GET
def import_status(request, slug: str, batch_id: int):
    """One import's progress as JSON, polled by ``static/js/import.js``."""
    project = lead_project(request, slug)
    batch = get_object_or_404(
        ImportBatch.objects.defer("source").select_related("created_by"), pk=batch_id, project=project
    )
    return JsonResponse(import_batch_status(batch=batch))


@login_required
def import_remove(request, slug: str, batch_id: int):
    """GET: what removing the batch deletes, and a button to confirm; POST: remove it."""
    project = lead_project(request, slug)
    batch = get_object_or_404(
        ImportBatch.objects.defer("source").select_related("created_by"), pk=batch_id, project=project
    )
    if request.method == "POST":
        try:
            removal = import_batch_remove(project=project, batch_id=batch.pk, user=request.user)
        except ImportBatchError as exc:
            messages.error(request, str(exc))
        else:
            c = removal.contents
            if removal.refused:
                messages.success(
                    request,
                    gettext("Removed the refused import %(pk)s (%(file_names)s) from the list.")
                    % {"pk": batch.pk, "file_names": batch.file_names},
                )
                return redirect(f"{reverse('lead_project', args=[slug])}#imports")
            messages.success(
                request,
                gettext(
                    "Removed import %(pk)s (%(file_names)s): %(dialogues)s dialogues, %(assignments)s assignments "
                    "and %(submitted_judgements)s submitted judgements. The statistics are being recomputed."
                )
                % {
                    "pk": batch.pk,
                    "file_names": batch.file_names,
                    "dialogues": c.dialogues,
                    "assignments": c.assignments,
                    "submitted_judgements": c.submitted_judgements,
                },
            )
        return redirect(f"{reverse('lead_project', args=[slug])}#imports")
    if batch.status != ImportStatus.DONE:
        raise Http404("only an imported batch can be removed")
    return render(
        request,
        "annotator/import_remove.html",
        {"project": project, "batch": batch, "contents": import_batch_contents(batch=batch)},
    )


@login_required
@require_POST
def member_add(request, slug: str):
    project = lead_project(request, slug)
    form = MemberForm(request.POST)
    if not form.is_valid():
        return _page(request, project, member_form=form)
    username, role = form.cleaned_data["username"], form.cleaned_data["role"]
    try:
        membership_add_account(
            project=project, actor=request.user, username=username, password=form.cleaned_data["password"], role=role
        )
    except ValidationError as exc:
        for field, problems in exc.message_dict.items():
            form.add_error(field, problems)
        return _page(request, project, member_form=form)
    messages.success(
        request,
        gettext("%(username)s is now %(role)s of %(slug)s.")
        % {"username": username, "role": role, "slug": project.slug},
    )
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def member_remove(request, slug: str, user_id: int):
    project = lead_project(request, slug)
    if user_id == request.user.pk:  # a lead cannot remove themselves here
        messages.error(request, gettext("You cannot remove yourself; ask another lead."))
        return redirect("lead_project", slug=slug)
    username = project.memberships.filter(user_id=user_id).values_list("user__username", flat=True).first()
    if username is None:
        raise Http404("no such member")
    work = member_work(project=project, user_id=user_id)
    before = assignment_shortfall(project=project)
    membership_remove(project=project, user_id=user_id)
    after = assignment_shortfall(project=project)
    messages.success(request, member_removal_message(username=username, work=work, before=before, after=after))
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def member_tokens(request, slug: str, user_id: int):
    """Revoke a member's API tokens (a lost laptop, a leaked script)."""
    project = lead_project(request, slug)
    try:
        revoked = member_tokens_revoke(project=project, user_id=user_id)
    except Membership.DoesNotExist:
        raise Http404("no such member") from None
    messages.success(
        request,
        gettext("Revoked %(revoked)s API token(s); the member asks for a new one with their password.")
        % {"revoked": revoked},
    )
    return redirect("lead_project", slug=slug)


@login_required
@require_POST
def reopen(request, slug: str, assignment_id: int):
    project = lead_project(request, slug)
    assignment = get_object_or_404(Assignment, pk=assignment_id, dialogue__project=project)
    reason = (request.POST.get("reason") or "").strip()[:500]
    assignment_reopen(assignment_id=assignment.pk, reason=reason)
    shown = f" with the reason: {reason}" if reason else ""
    messages.success(
        request,
        gettext("Reopened %(external_id)s for %(username)s%(shown)s.")
        % {"external_id": assignment.dialogue.external_id, "username": assignment.annotator.username, "shown": shown},
    )
    return redirect("lead_project", slug=slug)
