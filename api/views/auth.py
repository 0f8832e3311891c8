"""API tokens: obtain one with a username and password; leads revoke their members' tokens."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead
from annotator.models import Membership
from annotator.services.accounts import member_tokens_revoke, token_issue


class TokenObtain(ObtainAuthToken):
    """Your API token (``{"token": KEY}``); a new key once the old one was revoked or expired."""

    @extend_schema(
        request=inline_serializer(
            "TokenIn", {"username": serializers.CharField(), "password": serializers.CharField()}
        ),
        responses=inline_serializer("TokenOut", {"token": serializers.CharField()}),
    )
    def post(self, request, *args, **kwargs):
        given = self.get_serializer(data=request.data)
        given.is_valid(raise_exception=True)
        return Response({"token": token_issue(user=given.validated_data["user"]).key})


class MemberTokensRevoke(APIView):
    """Revoke a member's API tokens (leads): their requests answer 401 until they ask for a new token."""

    permission_classes = [IsProjectLead]

    @extend_schema(request=None, responses={200: inline_serializer("Revoked", {"revoked": serializers.IntegerField()})})
    def post(self, request, slug: str, user_id: int):
        try:
            revoked = member_tokens_revoke(project=request.project, user_id=user_id)
        except Membership.DoesNotExist:
            raise NotFound("no such member of this project") from None
        return Response({"revoked": revoked}, status=status.HTTP_200_OK)
