"""What every vendor's views share: the key, the throttle, and an async job's PDF by id."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.authentication import DropInKeyAuthentication
from accounts.throttles import StatusReadThrottle
from dropins.common import PDF_ANSWER, pdf_response
from jobs.api.access import job_for_request
from workspaces.permissions import Action

# The bases carry comments, not docstrings: drf-spectacular would publish a docstring as
# the description of every operation below them.


# A drop-in route: the API key where the vendor's clients send theirs, read at the status
# rate (a vendor's base adds its schema tag; a submit sets SubmitThrottle).
class DropInApi(APIView):
    authentication_classes = [DropInKeyAuthentication]
    throttle_classes = [StatusReadThrottle]


# An async job's PDF, by the id its vendor's path names (`id_kwarg`); another workspace's
# id is a 404. A vendor's subclass gives the operation its id and summary.
class DropInPdfApi(DropInApi):
    id_kwarg = "job_id"

    @extend_schema(responses=PDF_ANSWER)
    def get(self, request: Request, **path: str) -> HttpResponse:
        return pdf_response(job_for_request(request, path[self.id_kwarg], Action.JOB_DOWNLOAD))
