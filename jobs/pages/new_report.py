"""New report: a gallery of templates with thumbnails, then a data form for the one chosen."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from accounts.tenancy import tenant_id_for
from accounts.throttles import tenant_rate_take
from core.disclosure import public_text
from jobs import services
from jobs.pages.forms import ReportRequestForm
from rendering.errors import ApplicationError
from reports import selectors
from reports.models import Renderer, ReportTemplate
from reports.preview_queue import PreviewsBusy
from reports.thumbnails import template_thumbnail
from workspaces.current import page_get, workspace_current, workspace_page_for
from workspaces.permissions import Action, authorize_page

# An image that says "no preview" rather than a broken-image icon.
_NO_PREVIEW = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="360" height="509" viewBox="0 0 360 509">'
    '<rect width="360" height="509" fill="#f5f7fa"/><text x="180" y="254" font-family="sans-serif"'
    ' font-size="20" fill="#7b8794" text-anchor="middle">No preview</text></svg>'
)


def _not_now(limit: str) -> HttpResponse:
    """429 with the "no preview" picture (an <img> shows it) and the limit's name."""
    response = HttpResponse(_NO_PREVIEW, content_type="image/svg+xml", status=429)
    response["Retry-After"] = str(settings.PDF_PREVIEW_WAIT_SECONDS)
    response["X-Limit"] = limit
    response["Cache-Control"] = "no-store"
    return response


# How the data is entered: the form generated from the schema, or the JSON editor.
DATA_TABS = ("form", "json")


def visible_template(request: HttpRequest, slug: str) -> ReportTemplate:
    """The workspace's template or a built-in, for a page that shows it (the studio too)."""
    return page_get(
        request,
        Action.TEMPLATE_VIEW,
        selectors.template_get_visible,
        missing="No such template.",
        slug=slug,
    )


def _schema(template: ReportTemplate) -> dict[str, Any] | None:
    # The schema field arrives with the template-schema work; until then, no schema.
    schema = getattr(template, "schema", None)
    return schema if isinstance(schema, dict) and schema else None


@login_required
def template_gallery(request: HttpRequest) -> HttpResponse:
    workspace = workspace_page_for(request, Action.TEMPLATE_VIEW)
    templates = selectors.template_list_for_gallery(workspace=workspace)
    return render(request, "jobs/gallery.html", {"templates": templates})


@login_required
def report_new(request: HttpRequest, slug: str) -> HttpResponse:
    template = visible_template(request, slug)
    schema = _schema(template)
    made_for = tuple(template.renderers)
    if request.method == "POST":
        authorize_page(request.user, Action.JOB_SUBMIT, workspace_current(request))
        form = ReportRequestForm(request.POST, schema=schema, made_for=made_for)
        if form.is_valid():
            try:
                job, _ = services.job_create(
                    owner=request.user,
                    workspace=workspace_current(request),
                    template_slug=template.slug,
                    data=form.cleaned_data["data"],
                    options=form.options(),
                    renderer=form.cleaned_data.get("renderer") or None,
                )
            except ApplicationError as exc:
                form.add_error(None, public_text(exc.message))
            else:
                return redirect("job-page", job_id=job.job_id)
    else:
        form = ReportRequestForm(
            initial={
                "data": json.dumps(template.sample_data or {}, indent=2),
                "renderer": template.renderer,
            },
            schema=schema,
            made_for=made_for,
        )
    # A refused form comes back on the tab it was sent from (the page script posts it).
    data_tab = request.POST.get("data_tab") if request.method == "POST" else None
    if not schema:
        data_tab = "json"
    elif data_tab not in DATA_TABS:
        data_tab = "form"
    return render(
        request,
        "jobs/new_report.html",
        {"template": template, "form": form, "schema": schema, "data_tab": data_tab},
        status=400 if form.errors else 200,
    )


@login_required
@require_GET
def template_thumbnail_png(request: HttpRequest, slug: str) -> HttpResponse:
    template = visible_template(request, slug)
    renderer = request.GET.get("renderer") or template.renderer
    if renderer not in Renderer.values:
        raise Http404("No such renderer.")
    # Each thumbnail may cost a render: the tenant's rate (API_RATE_THUMBNAIL) and its
    # share of the previews queue bound what one user's gallery can ask of it.
    workspace = workspace_current(request)
    if not tenant_rate_take(scope="thumbnail", workspace=workspace):
        return _not_now("API_RATE_THUMBNAIL")
    try:
        png = template_thumbnail(
            template=template, renderer=renderer, tenant_id=tenant_id_for(workspace=workspace)
        )
    except PreviewsBusy:
        return _not_now("PREVIEW_MAX_IN_FLIGHT_PER_TENANT")
    if png is None:
        response = HttpResponse(_NO_PREVIEW, content_type="image/svg+xml")
    else:
        response = HttpResponse(png, content_type="image/png")
    # Private: a user's own template must not sit in a shared cache.
    response["Cache-Control"] = "private, max-age=300"
    return response
