"""The template library API: list, create, update (a draft), publish, rollback, archive,
versions, preview."""

from __future__ import annotations

import base64

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.tenancy import tenant_id_for
from accounts.throttles import PreviewThrottle, TemplateWriteThrottle
from core.api_schema import action_schema
from rendering.errors import ApplicationError
from rendering.options import parse_options
from reports import selectors
from reports.api.examples import (
    template_create_examples,
    template_preview_examples,
    template_update_examples,
)
from reports.api.serializers import (
    PREVIEW_SOURCE_FIELDS,
    TemplateCreateSerializer,
    TemplateDiffOutputSerializer,
    TemplateDiffQuerySerializer,
    TemplateFilterSerializer,
    TemplateOutputSerializer,
    TemplatePreviewPagesSerializer,
    TemplatePreviewSerializer,
    TemplateRollbackSerializer,
    TemplateUpdateSerializer,
    TemplateVersionOutputSerializer,
)
from reports.diff import diff_image_get, template_diff, version_resolve
from reports.error_codes import TemplateErrorCode
from reports.models import ReportTemplate
from reports.partials import template_partials_sources
from reports.preview_queue import PreviewWork, preview_request_pages
from reports.services import (
    template_archive,
    template_create,
    template_current_version,
    template_draft_save,
    template_publish,
    template_rollback,
    template_unarchive,
    template_validate,
)
from workspaces.current import actor_of, workspace_current, workspace_for
from workspaces.permissions import Action, authorize


def _visible(request: Request, slug: str, action: Action = Action.TEMPLATE_VIEW) -> ReportTemplate:
    """The workspace's template (or a built-in) if the caller's role may do `action`."""
    template = selectors.template_get_visible(workspace=workspace_current(request), slug=slug)
    if template.workspace_id is not None or action == Action.TEMPLATE_VIEW:
        authorize(actor_of(request), action, template)
    return template


def _own_template(request: Request, slug: str) -> ReportTemplate:
    template = _visible(request, slug, Action.TEMPLATE_EDIT)
    if template.workspace_id is None:
        raise ApplicationError(
            f"{slug!r} is a built-in template and read-only; create your own copy.",
            code=TemplateErrorCode.READ_ONLY,
            http_status=403,
        )
    return template


def _answer(template: ReportTemplate, code: int = status.HTTP_200_OK) -> Response:
    return Response(TemplateOutputSerializer(template).data, status=code)


class TemplateListCreateApi(APIView):
    throttle_classes = [TemplateWriteThrottle]

    @extend_schema(
        operation_id="template_list",
        summary="List my templates and the built-in ones",
        responses=TemplateOutputSerializer(many=True),
        parameters=[TemplateFilterSerializer],
    )
    def get(self, request: Request) -> Response:
        filters = TemplateFilterSerializer.of(request)
        workspace = workspace_for(request, Action.TEMPLATE_VIEW)
        templates = selectors.template_list_visible(
            workspace=workspace, archived=filters["archived"]
        ).select_related("published_version", "draft_version", "published_by")
        return Response(TemplateOutputSerializer(templates, many=True).data)

    @extend_schema(
        operation_id="template_create",
        summary="Create a template",
        examples=template_create_examples(),
        request=TemplateCreateSerializer,
        responses={201: TemplateOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        workspace = workspace_for(request, Action.TEMPLATE_EDIT)
        serializer = TemplateCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        template = template_create(
            owner=request.user,
            workspace=workspace,
            by=actor_of(request),
            **serializer.validated_data,
        )
        return _answer(template, status.HTTP_201_CREATED)


class TemplateDetailApi(APIView):
    throttle_classes = [TemplateWriteThrottle]

    @extend_schema(
        operation_id="template_get", summary="Get a template", responses=TemplateOutputSerializer
    )
    def get(self, request: Request, slug: str) -> Response:
        return _answer(_visible(request, slug))

    @extend_schema(
        operation_id="template_update",
        summary="Change a template (saves a draft; jobs render the published version)",
        examples=template_update_examples(),
        request=TemplateUpdateSerializer,
        responses=TemplateOutputSerializer,
    )
    def patch(self, request: Request, slug: str) -> Response:
        template = _own_template(request, slug)
        serializer = TemplateUpdateSerializer(
            data=request.data, context={"engine": template.engine}
        )
        serializer.is_valid(raise_exception=True)
        sent = {*request.data, *(["html"] if "template_file" in request.data else [])}
        changes = {k: v for k, v in serializer.validated_data.items() if k in sent}
        return _answer(template_draft_save(template=template, by=actor_of(request), **changes))

    @action_schema("template_archive", "Archive a template", {200: TemplateOutputSerializer})
    def delete(self, request: Request, slug: str) -> Response:
        """Archive: the template takes no new jobs; its versions stay for old jobs."""
        return _answer(
            template_archive(template=_own_template(request, slug), by=actor_of(request))
        )


class TemplateRestoreApi(APIView):
    throttle_classes = [TemplateWriteThrottle]

    @action_schema("template_restore", "Restore an archived template", TemplateOutputSerializer)
    def post(self, request: Request, slug: str) -> Response:
        return _answer(
            template_unarchive(template=_own_template(request, slug), by=actor_of(request))
        )


class TemplatePublishApi(APIView):
    throttle_classes = [TemplateWriteThrottle]

    @action_schema(
        "template_publish", "Publish the draft (new jobs render it)", TemplateOutputSerializer
    )
    def post(self, request: Request, slug: str) -> Response:
        template = _own_template(request, slug)
        authorize(actor_of(request), Action.TEMPLATE_PUBLISH, template)
        return _answer(template_publish(template=template, by=actor_of(request)))


class TemplateRollbackApi(APIView):
    throttle_classes = [TemplateWriteThrottle]

    @extend_schema(
        operation_id="template_rollback",
        summary="Publish an earlier version again",
        request=TemplateRollbackSerializer,
        responses=TemplateOutputSerializer,
    )
    def post(self, request: Request, slug: str) -> Response:
        template = _own_template(request, slug)
        authorize(actor_of(request), Action.TEMPLATE_PUBLISH, template)
        serializer = TemplateRollbackSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        number = serializer.validated_data["version"]
        return _answer(template_rollback(template=template, number=number, by=actor_of(request)))


class TemplateVersionListApi(APIView):
    @extend_schema(
        operation_id="template_versions",
        summary="List a template's versions",
        responses=TemplateVersionOutputSerializer(many=True),
    )
    def get(self, request: Request, slug: str) -> Response:
        template = _visible(request, slug)
        versions = selectors.template_version_list(template=template)
        return Response(TemplateVersionOutputSerializer(versions, many=True).data)


class TemplatePreviewApi(APIView):
    throttle_classes = [PreviewThrottle]

    @extend_schema(
        operation_id="template_preview",
        summary="Preview a template's first page as PNG",
        examples=template_preview_examples(),
        request=TemplatePreviewSerializer,
        responses={
            (200, "image/png"): OpenApiTypes.BINARY,
            (200, "application/json"): TemplatePreviewPagesSerializer,
        },
    )
    def post(self, request: Request, slug: str) -> HttpResponse:
        template = _visible(request, slug)
        # A preview renders like a submit; viewers read templates but do not render.
        workspace_for(request, Action.JOB_SUBMIT)
        serializer = TemplatePreviewSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fields = serializer.validated_data
        if "version" in fields:
            version = version_resolve(template=template, ref=fields["version"], default="")
        else:
            version = template_current_version(template=template)
        source = {name: getattr(version, name) for name in PREVIEW_SOURCE_FIELDS}
        source |= {name: fields[name] for name in PREVIEW_SOURCE_FIELDS if name in fields}
        # A template without sample data has nothing to preview with unless data is sent.
        data = fields.get("data", version.sample_data or None)
        renderer = fields.get("renderer", version.renderer)
        if any(name in fields for name in PREVIEW_SOURCE_FIELDS):
            template_validate(  # an unsaved edit: the errors a save would answer
                engine=source["engine"],
                html=source["html"],
                css=source["css"],
                schema=source["schema"],
                sample_data=data or {},
                renderer=renderer,
                helpers=source["helpers"],
            )
        work = PreviewWork(
            engine=source["engine"],
            source=source["html"],
            css=source["css"],
            data=data,
            options=parse_options(fields.get("options")).as_dict(),
            width=fields.get("width", 600),
            renderer=renderer,
            helpers=source["helpers"],
            pages=fields.get("pages", 1),
            partials=template_partials_sources(
                workspace=template.workspace_id,
                engine=source["engine"],
                html=source["html"],
                slug=template.slug,
            ),
        )
        # Rendered on the previews queue, not in this process.
        pngs = preview_request_pages(
            work,
            schema=source["schema"],
            tenant_id=tenant_id_for(workspace=workspace_current(request)),
        )
        if "pages" not in fields:
            return HttpResponse(pngs[0], content_type="image/png")
        urls = ["data:image/png;base64," + base64.b64encode(png).decode() for png in pngs]
        return Response({"pages": urls})


class TemplateDiffApi(APIView):
    throttle_classes = [PreviewThrottle]

    @extend_schema(
        operation_id="template_diff",
        summary="Compare two versions: page images, changed pixels, source diff",
        parameters=[TemplateDiffQuerySerializer],
        responses=TemplateDiffOutputSerializer,
    )
    def get(self, request: Request, slug: str) -> Response:
        template = _visible(request, slug)
        # Both versions render on the previews queue, as a preview does.
        workspace = workspace_for(request, Action.JOB_SUBMIT)
        query = TemplateDiffQuerySerializer.of(request)
        has_draft = template.draft_version_id is not None
        before = version_resolve(template=template, ref=query.get("from"), default="published")
        after = version_resolve(
            template=template,
            ref=query.get("to"),
            default="draft" if has_draft else "published",
        )
        pages, source = template_diff(
            before=before,
            after=after,
            tenant_id=tenant_id_for(workspace=workspace),
            workspace_id=workspace.pk,
        )

        def url(token: str | None) -> str | None:
            if token is None:
                return None
            path = reverse("api:template-diff-image", kwargs={"slug": slug, "token": token})
            return request.build_absolute_uri(path)

        return Response(
            {
                "from_version": before.number,
                "to_version": after.number,
                "pages": [
                    {
                        "page": page.page,
                        "changed_pixels": page.changed_pixels,
                        "before_png_url": url(page.before),
                        "after_png_url": url(page.after),
                        "overlay_png_url": url(page.overlay),
                    }
                    for page in pages
                ],
                "source_diff": source,
            }
        )


class TemplateDiffImageApi(APIView):
    @extend_schema(
        operation_id="template_diff_image",
        summary="A page image of a diff (kept 10 minutes)",
        responses={(200, "image/png"): inline_serializer("DiffPng", {})},
    )
    def get(self, request: Request, slug: str, token: str) -> HttpResponse:
        _visible(request, slug)
        png = diff_image_get(workspace_id=workspace_current(request).pk, token=token)
        response = HttpResponse(png, content_type="image/png")
        response["Cache-Control"] = "private, max-age=600"
        return response
