"""The caller's job for a route that names one by id: the REST API's and the drop-ins'."""

from __future__ import annotations

import uuid

from rest_framework.request import Request

from jobs import selectors
from jobs.models import PdfJob
from workspaces.current import api_get
from workspaces.permissions import Action


def job_for_request(request: Request, job_id: str | uuid.UUID, action: Action) -> PdfJob:
    """The job of the caller's workspace, if their role may do `action` (403 naming the
    roles that may); another workspace's job is a 404 like a missing one."""
    return api_get(request, action, selectors.job_get, job_id=job_id)
