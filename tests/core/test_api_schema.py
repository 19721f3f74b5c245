"""How operations are described in the OpenAPI schema (core.api_schema)."""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from core.api_schema import action_schema


class _ThingSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()


class _ThingRetryApi(GenericAPIView[Any]):
    # A serializer the schema would otherwise take for the request body too.
    serializer_class = _ThingSerializer

    @action_schema("thing_retry", "Retry a thing", {202: _ThingSerializer})
    def post(self, request: Request, thing_id: str) -> Response:
        return Response({"name": thing_id}, status=202)


def test_an_action_takes_no_request_body_and_answers_what_it_declares():
    generator = SchemaGenerator(
        patterns=[path("things/<str:thing_id>/retry", _ThingRetryApi.as_view())]
    )
    operation = generator.get_schema(request=None, public=True)["paths"][
        "/things/{thing_id}/retry"
    ]["post"]
    assert (operation["operationId"], operation["summary"]) == ("thing_retry", "Retry a thing")
    assert "requestBody" not in operation
    assert set(operation["responses"]) == {"202", "default"}
