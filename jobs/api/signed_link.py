"""The download views whose credential is a signed link (a job's PDF, a run's file): the
token in the URL, checked against the one thing it was made for; no API key."""

from __future__ import annotations

from collections.abc import Callable

from drf_spectacular.utils import OpenApiParameter
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.views import APIView

from core.errors import NotFound

# The link's own query parameter, as the schema names it.
TOKEN = OpenApiParameter("token", str, required=True)


class SignedLinkApi(APIView):
    """Download by signed link: the token in the URL is the credential, so no API key."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    def token_check(
        self, request: Request, valid: Callable[[str, str], bool], key: str, noun: str
    ) -> None:
        """NotFound unless the URL's token was signed for `key` (a `noun`'s id) and has not
        expired: a link that is wrong says no more than one for a missing thing."""
        if not valid(request.query_params.get("token", ""), key):
            raise NotFound(
                f"This download link is invalid or has expired; ask for the {noun} again."
            )
