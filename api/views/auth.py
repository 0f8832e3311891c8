"""API tokens: obtain one with a username and password (throttled per address and locked out like the login
page); leads revoke their members' tokens."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.utils.translation import gettext
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead
from annotator.models import Membership
from annotator.services.accounts import member_tokens_revoke, token_issue
from api import serializers as s
from api.schema_docs import documented
from api.throttles import LoginRateThrottle
from config.limits import lockout_message


class TokenObtain(APIView):
    """Your API token (created on first use). Ten wrong passwords lock the account and the address for a while."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [LoginRateThrottle]

    @documented(request=s.TokenIn, responses={200: s.TokenOut})
    def post(self, request):
        given = s.TokenIn(data=request.data)
        given.is_valid(raise_exception=True)
        # the Django request, so that django-axes records the attempt and flags a lockout where its middleware sees it
        user = authenticate(
            request._request, username=given.validated_data["username"], password=given.validated_data["password"]
        )
        if getattr(request._request, "axes_locked_out", False):
            return Response({"detail": lockout_message(), "locked_out": True}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        if user is None or not user.is_active:
            return Response(
                {"detail": gettext("Unable to log in with the username and password given.")},
                status=status.HTTP_400_BAD_REQUEST,
            )
        return Response(s.TokenOut({"token": token_issue(user=user).key}).data)


class MemberTokensRevoke(APIView):
    """Revoke a member's API tokens (leads): their requests answer 401 until they ask for a new token."""

    permission_classes = [IsProjectLead]

    @documented(request=None, responses={200: inline_serializer("Revoked", {"revoked": serializers.IntegerField()})})
    def post(self, request, slug: str, user_id: int):
        try:
            revoked = member_tokens_revoke(project=request.project, user_id=user_id)
        except Membership.DoesNotExist:
            raise NotFound(gettext("no such member of this project")) from None
        return Response({"revoked": revoked}, status=status.HTTP_200_OK)
