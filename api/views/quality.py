"""Quality control over REST: settings, control and training items, mixing, qualification, exclusions,
adjudications (leads; adjudications also adjudicators) and an annotator's training feedback.

The same services as the pages; a change that alters what counts asks the workers to recompute the statistics.
"""

from __future__ import annotations

from dataclasses import asdict

from django.db.models import Count
from django.http import Http404
from django.utils.translation import gettext
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectAdjudicator, IsProjectLead, own_assignment
from annotator.models import ExpectedAnswer, QualityItem
from annotator.selectors.adjudication import adjudicated_labels
from annotator.selectors.population import annotators_included
from annotator.selectors.qualification import qualification_results, training_feedback
from annotator.services.adjudication import AdjudicationError, adjudication_record, adjudication_remove
from annotator.services.exclusions import ExclusionError, annotator_exclude, annotator_include
from annotator.services.qualification import qualification_admit
from annotator.services.quality_items import (
    Expected,
    QualityError,
    quality_assignments_create,
    quality_item_remove,
    quality_item_set,
    quality_items_upload,
    quality_settings_get,
    quality_settings_update,
)
from api import quality_serializers as q
from api.schema_docs import documented


def _dialogue_id(project, external_id: str) -> int:
    if "\x00" in external_id:
        raise Http404(gettext("no such dialogue"))
    found = project.dialogues.filter(external_id=external_id).values_list("pk", flat=True).first()
    if found is None:
        raise ValidationError(
            {
                "dialogue": [
                    gettext("no dialogue %(external_id)s in project %(slug)s")
                    % {"external_id": repr(external_id), "slug": project.slug}
                ]
            }
        )
    return found


def _dialogue_in_path(project, external_id: str) -> int:
    """The dialogue a URL names: 404 when the project has none of that id (a body naming one answers 400)."""
    try:
        return _dialogue_id(project, external_id)
    except ValidationError:
        raise Http404(gettext("no such dialogue")) from None


def _items(project) -> list[dict]:
    answers: dict[int, list[dict]] = {}
    for item_id, key, unit, value, tolerance in (
        ExpectedAnswer.objects.filter(item__dialogue__project=project)
        .order_by("criterion__position", "unit")
        .values_list("item_id", "criterion__key", "unit", "value", "tolerance")
    ):
        answers.setdefault(item_id, []).append({"criterion": key, "unit": unit, "value": value, "tolerance": tolerance})
    rows = (
        QualityItem.objects.filter(dialogue__project=project)
        .annotate(assigned=Count("dialogue__assignments"))
        .order_by("dialogue__position")
        .values_list("pk", "dialogue__external_id", "kind", "explanation", "assigned")
    )
    return [
        {"dialogue": d, "kind": k, "explanation": e, "answers": answers.get(pk, []), "assigned": n}
        for pk, d, k, e, n in rows
    ]


class QualitySettingsView(APIView):
    """The project's quality settings (GET); change some of them (PATCH)."""

    permission_classes = [IsProjectLead]

    @documented(responses=q.QualitySettingsIO)
    def get(self, request, slug: str):
        return Response(q.QualitySettingsIO(quality_settings_get(project=request.project)).data)

    @documented(request=q.QualitySettingsIO, responses=q.QualitySettingsIO)
    def patch(self, request, slug: str):
        given = q.QualitySettingsIO(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            settings = quality_settings_update(project=request.project, **given.validated_data)
        except QualityError as exc:
            raise ValidationError({"detail": exc.problems}) from None
        return Response(q.QualitySettingsIO(settings).data)


class QualityItems(APIView):
    """Control and training items with their expected answers (GET); mark a dialogue as one (POST)."""

    permission_classes = [IsProjectLead]

    @documented(responses=q.QualityItemOut(many=True))
    def get(self, request, slug: str):
        return Response(q.QualityItemOut(_items(request.project), many=True).data)

    @documented(request=q.QualityItemIn, responses={201: q.QualityItemOut})
    def post(self, request, slug: str):
        given = q.QualityItemIn(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        try:
            quality_item_set(
                project=request.project,
                dialogue_id=_dialogue_id(request.project, data["dialogue"]),
                kind=data["kind"],
                answers=[Expected(a["criterion"], a["unit"], a["value"], a["tolerance"]) for a in data["answers"]],
                explanation=data["explanation"],
            )
        except QualityError as exc:
            raise ValidationError({"answers": exc.problems}) from None
        item = next(i for i in _items(request.project) if i["dialogue"] == data["dialogue"])
        return Response(q.QualityItemOut(item).data, status=status.HTTP_201_CREATED)


class QualityItemDetail(APIView):
    """Make a control or training item an ordinary dialogue again."""

    permission_classes = [IsProjectLead]

    @documented(request=None, responses={204: None})
    def delete(self, request, slug: str, external_id: str):
        if not quality_item_remove(
            project=request.project, dialogue_id=_dialogue_in_path(request.project, external_id)
        ):
            raise Http404(gettext("not a control or training item"))
        return Response(status=status.HTTP_204_NO_CONTENT)


class QualityItemsUpload(APIView):
    """Upload dialogues with annotations as control or training items (expected answers: their consensus)."""

    parser_classes = [MultiPartParser, FormParser]
    permission_classes = [IsProjectLead]

    @documented(request=q.QualityUploadIn, responses={201: q.QualityItemOut(many=True)})
    def post(self, request, slug: str):
        given = q.QualityUploadIn(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        try:
            made = quality_items_upload(
                project=request.project,
                uploaded=data["file"],
                kind=data["kind"],
                fmt=data["format"],
                tolerance=data.get("tolerance"),
                explanation=data["explanation"],
            )
        except QualityError as exc:
            raise ValidationError({"detail": exc.problems}) from None
        names = {i.dialogue.external_id for i in made}
        items = [i for i in _items(request.project) if i["dialogue"] in names]
        return Response(q.QualityItemOut(items, many=True).data, status=status.HTTP_201_CREATED)


class QualityMix(APIView):
    """Give every annotator the training items, and control items at the project's rate."""

    permission_classes = [IsProjectLead]

    @documented(request=q.MixIn, responses=q.MixOut)
    def post(self, request, slug: str):
        given = q.MixIn(data=request.data)
        given.is_valid(raise_exception=True)
        report = quality_assignments_create(project=request.project, seed=given.validated_data["seed"])
        return Response(q.MixOut(asdict(report)).data)


class Qualification(APIView):
    """Every annotator's qualification result."""

    permission_classes = [IsProjectLead]

    @documented(responses=q.QualificationOut(many=True))
    def get(self, request, slug: str):
        return Response(q.QualificationOut(qualification_results(project=request.project), many=True).data)


class QualificationAdmit(APIView):
    """Let an annotator into the real queue by hand."""

    permission_classes = [IsProjectLead]

    @documented(request=q.AdmitIn, responses=q.QualificationOut(many=True))
    def post(self, request, slug: str):
        given = q.AdmitIn(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            qualification_admit(
                project=request.project,
                username=given.validated_data["annotator"],
                admitted_by=request.user,
                note=given.validated_data["note"],
            )
        except ValueError as exc:
            raise ValidationError({"annotator": [str(exc)]}) from None
        return Response(q.QualificationOut(qualification_results(project=request.project), many=True).data)


class Exclusions(APIView):
    """Who the gold data and statistics include and exclude (GET); exclude an annotator with a reason (POST)."""

    permission_classes = [IsProjectLead]

    @documented(responses=q.PopulationOut)
    def get(self, request, slug: str):
        return Response(q.PopulationOut(asdict(annotators_included(request.project, by="username"))).data)

    @documented(request=q.ExclusionIO, responses={201: q.PopulationOut})
    def post(self, request, slug: str):
        given = q.ExclusionIO(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            annotator_exclude(
                project=request.project,
                username=given.validated_data["annotator"],
                reason=given.validated_data["reason"],
                excluded_by=request.user,
            )
        except ExclusionError as exc:
            raise ValidationError({"annotator": [str(exc)]}) from None
        body = q.PopulationOut(asdict(annotators_included(request.project, by="username"))).data
        return Response(body, status=status.HTTP_201_CREATED)


class ExclusionDetail(APIView):
    """Count an excluded annotator's judgements again."""

    permission_classes = [IsProjectLead]

    @documented(request=None, responses={204: None})
    def delete(self, request, slug: str, annotator: str):
        if "\x00" in annotator:
            raise Http404(gettext("no such annotator"))
        try:
            lifted = annotator_include(project=request.project, username=annotator)
        except ExclusionError as exc:
            raise Http404(str(exc)) from None
        if not lifted:
            raise Http404(gettext("the annotator is not excluded"))
        return Response(status=status.HTTP_204_NO_CONTENT)


class Adjudications(APIView):
    """Final labels of disputed units (GET); record one (POST; leads and adjudicators)."""

    permission_classes = [IsProjectAdjudicator]

    @documented(responses=q.AdjudicationIO(many=True))
    def get(self, request, slug: str):
        rows = list(adjudicated_labels(project=request.project).values())
        return Response(q.AdjudicationIO(rows, many=True).data)

    @documented(request=q.AdjudicationIO, responses={201: q.AdjudicationIO})
    def post(self, request, slug: str):
        given = q.AdjudicationIO(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        try:
            record = adjudication_record(
                project=request.project,
                dialogue_id=_dialogue_id(request.project, data["dialogue"]),
                criterion=data["criterion"],
                unit=data["unit"],
                value=data["value"],
                note=data["note"],
                adjudicator=request.user,
            )
        except AdjudicationError as exc:
            raise ValidationError({"value": [str(exc)]}) from None
        body = {**data, "note": record.note, "adjudicator": request.user.username}
        return Response(q.AdjudicationIO(body).data, status=status.HTTP_201_CREATED)


class AdjudicationDetail(APIView):
    """Remove the final label of a unit."""

    permission_classes = [IsProjectAdjudicator]

    @documented(request=None, responses={204: None})
    def delete(self, request, slug: str, external_id: str, criterion: str, unit: int):
        if "\x00" in criterion or unit > q.MAX_INT:
            raise Http404(gettext("no such unit"))
        dialogue_id = _dialogue_in_path(request.project, external_id)
        if not adjudication_remove(project=request.project, dialogue_id=dialogue_id, criterion=criterion, unit=unit):
            raise Http404(gettext("no final label for that unit"))
        return Response(status=status.HTTP_204_NO_CONTENT)


class TrainingFeedback(APIView):
    """Your answers to a submitted training item beside the expected ones, and the lead's explanation."""

    permission_classes = [IsAuthenticated]

    @documented(responses=q.FeedbackOut)
    def get(self, request, pk: int):
        assignment = own_assignment(request, pk)
        try:
            feedback = training_feedback(assignment=assignment)
        except ValueError:
            raise Http404(gettext("not a training item")) from None
        status_ = feedback.pop("qualification")
        return Response(q.FeedbackOut({**feedback, "state": status_.state, "score": status_.score}).data)
