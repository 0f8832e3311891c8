"""Input and output shapes of the study endpoints (the model's validators apply to the input)."""

from rest_framework import serializers

from annotator.studies.models import Study
from annotator.studies.services import SETTINGS_FIELDS


class StudyIn(serializers.ModelSerializer):
    """A study's settings. ``completion_code`` left out (or empty) on creation: a random one.
    ``confirm_time_limit``: change the time limit although participants are at work (their deadline moves)."""

    confirm_time_limit = serializers.BooleanField(required=False, default=False, write_only=True)

    class Meta:
        model = Study
        fields = [*SETTINGS_FIELDS, "confirm_time_limit"]
        extra_kwargs = {"completion_code": {"required": False, "allow_blank": True}}


class PlacesOut(serializers.Serializer):
    full = serializers.IntegerField(help_text="Participants who can still get items_per_participant items each.")
    leftover = serializers.IntegerField(help_text="Items left after them (shorter sets for later participants).")
    missing = serializers.IntegerField(help_text="Assignments the project still lacks for K per dialogue.")
    per_participant = serializers.IntegerField()
    held_by_expired = serializers.IntegerField(help_text="Unfinished items of participants past the time limit.")


class StudyOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    token = serializers.CharField()
    link = serializers.CharField(help_text="The public link; platforms append the participant id to it.")
    is_open = serializers.BooleanField()
    consent_text = serializers.CharField()
    items_per_participant = serializers.IntegerField()
    time_limit_minutes = serializers.IntegerField()
    id_parameter = serializers.CharField()
    completion_code = serializers.CharField()
    completion_url = serializers.CharField()
    created_at = serializers.DateTimeField()
    token_rotated_at = serializers.DateTimeField(allow_null=True)
    places = PlacesOut()


class StudyOpenIn(serializers.Serializer):
    is_open = serializers.BooleanField(help_text="false closes the study (no new participants); true reopens it.")


class ReleasedOut(serializers.Serializer):
    released = serializers.IntegerField()


class ParticipantOut(serializers.Serializer):
    id = serializers.IntegerField()
    external_id = serializers.CharField()
    username = serializers.CharField()
    status = serializers.CharField()
    study_id = serializers.CharField(help_text="Prolific's STUDY_ID of the first visit")
    session_id = serializers.CharField(help_text="Prolific's SESSION_ID of the first visit")
    assignment_id = serializers.CharField(help_text="MTurk's assignmentId of the first visit")
    hit_id = serializers.CharField(help_text="MTurk's hitId of the first visit")
    first_visit = serializers.DateTimeField()
    consented = serializers.DateTimeField(allow_null=True)
    started = serializers.DateTimeField(allow_null=True)
    finished = serializers.DateTimeField(allow_null=True)
    items = serializers.IntegerField()
    submitted = serializers.IntegerField()
    released = serializers.IntegerField()
    seconds_worked = serializers.IntegerField()
    api_token = serializers.BooleanField()


class ParticipantTokenOut(serializers.Serializer):
    token = serializers.CharField()
