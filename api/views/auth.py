"""The API token for a username and password, throttled per address and locked out like the login page."""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers as s
from api.throttles import LoginRateThrottle
from config.limits import lockout_message


class TokenObtain(APIView):
    """Your API token (created on first use). Ten wrong passwords lock the account and the address for a while."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [LoginRateThrottle]

    @extend_schema(request=s.TokenIn, responses={200: s.TokenOut})
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
                {"detail": "Unable to log in with the username and password given."},
                status=status.HTTP_400_BAD_REQUEST,
            )
        token, _created = Token.objects.get_or_create(user=user)
        return Response(s.TokenOut({"token": token.key}).data)
