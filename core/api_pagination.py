"""One way the API's lists page: `?limit=` (50 by default, at most 200) and `?offset=`,
answered as `{count, next, previous, results}` and described so in the schema."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


def paginated_schema(name: str, item: type[serializers.Serializer[Any]]) -> Any:
    """The schema of a page of `item`s, named `name`. The item serializer is made last:
    DRF orders fields by when they were made, so `results` stays the last property."""
    return inline_serializer(
        name,
        {
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item(many=True),
        },
    )


def paginated(
    request: Request,
    view: APIView,
    rows: QuerySet[Any],
    item: type[serializers.Serializer[Any]],
    *,
    context: dict[str, Any] | None = None,
) -> Response:
    """The page of `rows` the request asks for, each row through `item` (with `context`):
    the answer `paginated_schema` describes."""
    paginator = Pagination()
    page = paginator.paginate_queryset(rows, request, view=view) or []
    return paginator.get_paginated_response(item(page, many=True, context=context or {}).data)
