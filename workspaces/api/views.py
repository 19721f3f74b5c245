"""GET /api/v1/audit-log: the workspace's audit log for its owners, filtered, as JSON or
a CSV/JSON download; POST /api/v1/workspaces: a team workspace made by an owner."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from rendering.errors import ApplicationError
from workspaces.api.serializers import (
    AuditEntryOutputSerializer,
    AuditFilterSerializer,
    WorkspaceCreateInputSerializer,
    WorkspaceOutputSerializer,
)
from workspaces.audit_export import audit_csv, audit_row
from workspaces.current import actor_of, workspace_current, workspace_for
from workspaces.permissions import Action, authorize
from workspaces.selectors import audit_entries
from workspaces.services import workspace_create


class AuditCsvRenderer(BaseRenderer):
    """`?format=csv` (DRF picks a renderer by `format`): one line per entry."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None
    ) -> Any:
        return audit_csv(data)  # errors never come here: handle_exception answers JSON


class AuditLogApi(APIView):
    renderer_classes = [JSONRenderer, AuditCsvRenderer]

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        try:
            return super().perform_content_negotiation(request, force)
        except Http404:  # DRF's answer to an unknown ?format=: say what is
            raise ApplicationError(
                "Unknown format; use format=csv or format=json.", http_status=400
            ) from None

    def handle_exception(self, exc: Exception) -> Response:
        # An error is the API's JSON error, whatever file format was asked for.
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return super().handle_exception(exc)

    @extend_schema(
        operation_id="audit_log",
        summary="The workspace's audit log (owners), newest first; CSV or JSON export",
        parameters=[AuditFilterSerializer],
        responses={
            200: OpenApiResponse(AuditEntryOutputSerializer(many=True)),
        },
    )
    def get(self, request: Request) -> Response:
        workspace = workspace_for(request, Action.AUDIT_VIEW)
        found = AuditFilterSerializer.of(request)
        entries = audit_entries(workspace=workspace, filters=found)[: found["limit"]]
        rows = [audit_row(entry) for entry in entries]
        response = Response(AuditEntryOutputSerializer(rows, many=True).data)
        if "format" in found:
            name = f"audit-{workspace.slug}.{found['format']}"
            response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


class WorkspaceCreateApi(APIView):
    @extend_schema(
        operation_id="workspace_create",
        summary="Make a team workspace; you become its owner (owners of the current one)",
        request=WorkspaceCreateInputSerializer,
        responses={201: WorkspaceOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        actor = actor_of(request)
        authorize(actor, Action.WORKSPACE_CREATE, workspace_current(request))
        body = WorkspaceCreateInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        workspace = workspace_create(name=body.validated_data["name"], owner=request.user, by=actor)
        answer = {"name": workspace.name, "slug": workspace.slug, "role": "owner"}
        return Response(WorkspaceOutputSerializer(answer).data, status=201)
