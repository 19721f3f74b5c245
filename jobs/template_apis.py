"""The template library API: list, create, update (new version), archive, versions, preview."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from jobs import selectors
from jobs.api_fields import JsonInput, JsonObjectField, PdfOptionsField, QueryFilters
from jobs.exceptions import ApplicationError, NotFound
from reports.engines import ENGINE_NAMES
from reports.models import ReportTemplate
from reports.options import parse_options
from reports.preview import template_preview_png
from reports.services import (
    template_archive,
    template_create,
    template_current_version,
    template_unarchive,
    template_update,
)


def template_representation(template: ReportTemplate) -> dict[str, Any]:
    version = template.latest_version
    return {
        "slug": template.slug,
        "name": template.name,
        "engine": template.engine,
        "html": template.html,
        "css": template.css,
        "schema": template.schema,
        "sample_data": template.sample_data,
        "version": version.number if version else None,
        "builtin": template.owner_id is None,
        "archived": template.is_archived,
        "created_at": template.created_at.isoformat(),
        "updated_at": template.updated_at.isoformat(),
    }


class TemplateOutputSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    engine = serializers.ChoiceField(choices=ENGINE_NAMES)
    html = serializers.CharField()
    css = serializers.CharField()
    schema = JsonObjectField(help_text="JSON Schema every job's data must match.")
    sample_data = JsonObjectField()
    version = serializers.IntegerField(help_text="Number of the version new jobs render.")
    builtin = serializers.BooleanField()
    archived = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class _TemplateFields(JsonInput):
    name = serializers.CharField(max_length=200)
    engine = serializers.ChoiceField(choices=ENGINE_NAMES, default="handlebars")
    html = serializers.CharField(trim_whitespace=False)
    css = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    schema = JsonObjectField(required=False)
    sample_data = JsonObjectField(required=False)


def _own_template(request: Request, slug: str) -> ReportTemplate:
    template = selectors.template_get_visible(owner=request.user, slug=slug)
    if template is None:
        raise NotFound(f"No template with slug {slug!r} was found.")
    if template.owner_id is None:
        raise ApplicationError(
            f"{slug!r} is a built-in template and read-only; create your own copy.",
            code="read_only",
            status=403,
        )
    return template


class TemplateListCreateApi(APIView):
    class TemplateCreateSerializer(_TemplateFields):
        slug = serializers.SlugField(max_length=100)

    class FilterSerializer(QueryFilters):
        archived = serializers.BooleanField(
            required=False, default=False, help_text="include archived ones"
        )

    @extend_schema(responses=TemplateOutputSerializer(many=True), parameters=[FilterSerializer])
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        templates = selectors.template_list_visible(owner=request.user).prefetch_related("versions")
        if not filters.validated_data["archived"]:
            templates = templates.filter(archived_at__isnull=True)
        return Response([template_representation(t) for t in templates])

    @extend_schema(request=TemplateCreateSerializer, responses={201: TemplateOutputSerializer})
    def post(self, request: Request) -> Response:
        serializer = self.TemplateCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        template = template_create(owner=request.user, **serializer.validated_data)
        return Response(template_representation(template), status=status.HTTP_201_CREATED)


class TemplateDetailApi(APIView):
    class TemplateUpdateSerializer(_TemplateFields):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, partial=True, **kwargs)

    @extend_schema(responses=TemplateOutputSerializer)
    def get(self, request: Request, slug: str) -> Response:
        template = selectors.template_get_visible(owner=request.user, slug=slug)
        if template is None:
            raise NotFound(f"No template with slug {slug!r} was found.")
        return Response(template_representation(template))

    @extend_schema(request=TemplateUpdateSerializer, responses=TemplateOutputSerializer)
    def patch(self, request: Request, slug: str) -> Response:
        template = _own_template(request, slug)
        serializer = self.TemplateUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        changes = {k: v for k, v in serializer.validated_data.items() if k in request.data}
        template = template_update(template=template, by=request.user, **changes)
        return Response(template_representation(template))

    @extend_schema(request=None, responses={200: TemplateOutputSerializer})
    def delete(self, request: Request, slug: str) -> Response:
        """Archive: the template takes no new jobs; its versions stay for old jobs."""
        return Response(
            template_representation(template_archive(template=_own_template(request, slug)))
        )


class TemplateRestoreApi(APIView):
    @extend_schema(request=None, responses=TemplateOutputSerializer)
    def post(self, request: Request, slug: str) -> Response:
        template = template_unarchive(template=_own_template(request, slug))
        return Response(template_representation(template))


class TemplateVersionListApi(APIView):
    @extend_schema(
        responses=inline_serializer(
            "TemplateVersion",
            {
                "number": serializers.IntegerField(),
                "engine": serializers.CharField(),
                "created_at": serializers.DateTimeField(),
            },
            many=True,
        )
    )
    def get(self, request: Request, slug: str) -> Response:
        template = selectors.template_get_visible(owner=request.user, slug=slug)
        if template is None:
            raise NotFound(f"No template with slug {slug!r} was found.")
        return Response(
            [
                {"number": v.number, "engine": v.engine, "created_at": v.created_at.isoformat()}
                for v in template.versions.order_by("-number")
            ]
        )


class TemplatePreviewApi(APIView):
    class TemplatePreviewSerializer(JsonInput):
        data = JsonObjectField(required=False, help_text="Defaults to the sample data.")
        options = PdfOptionsField(required=False, default=dict)
        width = serializers.IntegerField(required=False, min_value=100, max_value=1600)

    @extend_schema(
        request=TemplatePreviewSerializer,
        responses={(200, "image/png"): inline_serializer("Png", {})},
    )
    def post(self, request: Request, slug: str) -> HttpResponse:
        template = selectors.template_get_visible(owner=request.user, slug=slug)
        if template is None:
            raise NotFound(f"No template with slug {slug!r} was found.")
        serializer = self.TemplatePreviewSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fields = serializer.validated_data
        version = template_current_version(template=template)
        data = fields.get("data", version.sample_data)
        png = template_preview_png(
            engine=version.engine,
            source=version.html,
            css=version.css,
            data=data,
            schema=version.schema,
            options=parse_options(fields.get("options")),
            width=fields.get("width", 600),
        )
        return HttpResponse(png, content_type="image/png")
