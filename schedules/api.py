"""The schedules API: thin views that parse, authorize, call a service and answer."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_api_key
from accounts.throttles import ReadOrSubmitThrottledApi, StatusReadThrottle, SubmitThrottle
from core.api_pagination import paginated, paginated_schema
from core.api_schema import action_schema
from schedules import selectors, services
from schedules.models import Schedule
from schedules.serializers import (
    ScheduleInputSerializer,
    ScheduleOutputSerializer,
    ScheduleRunOutputSerializer,
)
from workspaces.current import actor_of, api_get, workspace_for
from workspaces.permissions import Action


def _schedule(request: Request, schedule_id: str, action: Action) -> Schedule:
    return api_get(request, action, selectors.schedule_get, schedule_id=schedule_id)


def _input(request: Request) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise serializers.ValidationError("The request body must be a JSON object.")
    serializer = ScheduleInputSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.fields_given()


def _context(request: Request) -> dict[str, Any]:
    return {"absolute": request.build_absolute_uri}


class ScheduleListCreateApi(ReadOrSubmitThrottledApi):
    @extend_schema(
        operation_id="schedule_list",
        summary="List the workspace's schedules, newest first",
        responses=paginated_schema("PaginatedScheduleList", ScheduleOutputSerializer),
    )
    def get(self, request: Request) -> Response:
        workspace = workspace_for(request, Action.SCHEDULE_VIEW)
        rows = selectors.schedule_list(workspace=workspace)
        return paginated(request, self, rows, ScheduleOutputSerializer)

    @extend_schema(
        operation_id="schedule_create",
        summary="Create a schedule: a template rendered on a cron expression and delivered",
        request=ScheduleInputSerializer,
        responses={201: ScheduleOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        """`{template, data | data_url, cron, timezone, deliveries}`; 400 naming the field
        that is wrong (`details.field`). Webhook deliveries are signed with the calling
        key's secret, so they need a schedule made with an API key."""
        fields = _input(request)
        workspace = workspace_for(request, Action.SCHEDULE_MANAGE)
        schedule = services.schedule_create(
            workspace=workspace,
            created_by=request.user,
            fields=fields,
            api_key=request_api_key(request),
        )
        return Response(ScheduleOutputSerializer(schedule).data, status=status.HTTP_201_CREATED)


class ScheduleDetailApi(APIView):
    throttle_classes = [StatusReadThrottle]

    @extend_schema(
        operation_id="schedule_get", summary="Get a schedule", responses=ScheduleOutputSerializer
    )
    def get(self, request: Request, schedule_id: str) -> Response:
        schedule = _schedule(request, schedule_id, Action.SCHEDULE_VIEW)
        return Response(ScheduleOutputSerializer(schedule).data)

    @extend_schema(
        operation_id="schedule_update",
        summary="Edit a schedule, or pause (`paused: true`) and resume it",
        request=ScheduleInputSerializer,
        responses=ScheduleOutputSerializer,
    )
    def patch(self, request: Request, schedule_id: str) -> Response:
        fields = _input(request)
        schedule = _schedule(request, schedule_id, Action.SCHEDULE_MANAGE)
        schedule = services.schedule_update(schedule=schedule, fields=fields, by=actor_of(request))
        return Response(ScheduleOutputSerializer(schedule).data)

    @extend_schema(
        operation_id="schedule_delete",
        summary="Delete a schedule and its runs (their jobs stay)",
        responses={204: None},
    )
    def delete(self, request: Request, schedule_id: str) -> Response:
        services.schedule_delete(
            schedule=_schedule(request, schedule_id, Action.SCHEDULE_MANAGE), by=actor_of(request)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class ScheduleRunNowApi(APIView):
    throttle_classes = [SubmitThrottle]  # a run submits a job like a submit

    @action_schema(
        "schedule_run_now",
        "Run a schedule now (paused ones too); its next tick stays",
        {202: ScheduleRunOutputSerializer},
    )
    def post(self, request: Request, schedule_id: str) -> Response:
        schedule = _schedule(request, schedule_id, Action.SCHEDULE_MANAGE)
        run = services.schedule_run_now(schedule=schedule, by=actor_of(request))
        answer = ScheduleRunOutputSerializer(run, context=_context(request)).data
        return Response(answer, status=status.HTTP_202_ACCEPTED)


class ScheduleRunListApi(APIView):
    throttle_classes = [StatusReadThrottle]

    @extend_schema(
        operation_id="schedule_runs",
        summary="List a schedule's runs, newest first, each with its outcome",
        responses=paginated_schema("PaginatedScheduleRunList", ScheduleRunOutputSerializer),
    )
    def get(self, request: Request, schedule_id: str) -> Response:
        schedule = _schedule(request, schedule_id, Action.SCHEDULE_VIEW)
        runs = selectors.schedule_runs(schedule=schedule)
        return paginated(
            request, self, runs, ScheduleRunOutputSerializer, context=_context(request)
        )
