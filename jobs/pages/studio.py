"""The template studio: code editors, live preview, drafts, publish, rollback and diff for
one template (all through the template API), and a new template started from an engine's
starter or a built-in sample (a copy: a built-in is read-only in the studio)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_POST

from core.disclosure import public_text
from jobs.pages.new_report import visible_template
from rendering.engines import ENGINE_NAMES, ENGINES_WITH_HELPERS, FILE_ENGINES, engine_choices
from rendering.engines.docx import DOCX_ENGINE, docx_source
from rendering.errors import ApplicationError, InvalidInput
from rendering.forms import FORM_ENGINE, form_source
from reports import selectors
from reports.limits import limits_from_settings
from reports.models import Renderer, ReportTemplate
from reports.services import template_create, template_draft_save
from reports.starters import STARTER_ENGINES, starter
from workspaces.current import workspace_page_for
from workspaces.permissions import Action, authorize_page, can

# What a version's editors show (the draft's if there is one, else the published one's).
_SOURCE = ("engine", "renderer", "html", "css", "helpers", "schema", "sample_data", "options")
PAGE_SIZES = ("A4", "Letter", "Legal", "A5", "A3")


def _studio_state(request: HttpRequest, template: ReportTemplate) -> dict[str, Any]:
    """Everything the page script starts from, as one JSON object."""
    draft = template.draft_version
    live = template.published_version or template.latest_version
    shown: Any = draft or template
    versions = [
        {
            "number": version.number,
            "created_at": version.created_at.isoformat(),
            "by": version.created_by.get_username() if version.created_by else None,
        }
        for version in selectors.template_version_list(template=template).select_related(
            "created_by"
        )[:50]
    ]
    editable = template.workspace_id is not None and can(
        request.user, Action.TEMPLATE_EDIT, template
    )
    return {
        "slug": template.slug,
        "name": template.name,
        "source": {name: getattr(shown, name) for name in _SOURCE},
        "published_version": live.number if live else None,
        "draft_version": draft.number if draft else None,
        "published_at": template.published_at.isoformat() if template.published_at else None,
        "published_by": template.published_by.get_username() if template.published_by else None,
        "versions": versions,
        "editable": editable,
        "builtin": template.workspace_id is None,
        "helpers": shown.engine in ENGINES_WITH_HELPERS or bool(shown.helpers),
        "file": shown.engine in FILE_ENGINES,
        "can_publish": editable and can(request.user, Action.TEMPLATE_PUBLISH, template),
        "renderers": list(Renderer.values),
        "engines": list(ENGINE_NAMES),
        "page_sizes": list(PAGE_SIZES),
    }


@login_required
def template_studio(request: HttpRequest, slug: str) -> HttpResponse:
    template = visible_template(request, slug)
    return render(
        request,
        "jobs/studio.html",
        {"template": template, "studio": _studio_state(request, template)},
    )


@require_POST
@login_required
def template_studio_form_upload(request: HttpRequest, slug: str) -> HttpResponse:
    """A new file for a file template (a PDF form, a Word document): saved as its draft,
    with the new file's fields or tags as the schema; published from the studio like any
    draft."""
    template = visible_template(request, slug)
    authorize_page(request.user, Action.TEMPLATE_EDIT, template)
    upload = request.FILES.get("form_pdf")
    what = _FILE_KINDS.get(template.engine, "file")
    try:
        if template.engine not in FILE_ENGINES:
            raise InvalidInput("Only a PDF form or a Word template takes a file.")
        if upload is None:
            raise InvalidInput(f"Choose a {what} file.")
        source = _file_source(upload)
        if source["engine"] != template.engine:
            raise InvalidInput(f"This template is a {what}: upload a {what}.")
        template_draft_save(template=template, by=request.user, html=source["html"])
    except ApplicationError as exc:
        messages.error(request, public_text(exc.message))
    else:
        messages.success(request, f"The new {what} is saved as a draft: publish it to use it.")
    return redirect("template-studio", slug=template.slug)


@login_required
def template_studio_new(request: HttpRequest) -> HttpResponse:
    """A new template of the workspace's, started from a built-in sample's source."""
    workspace = workspace_page_for(request, Action.TEMPLATE_EDIT)
    samples = [
        t
        for t in selectors.template_list_for_gallery(workspace=workspace)
        if t.workspace_id is None
    ]
    labels = dict(engine_choices())
    starters = [(f"{STARTER_PREFIX}{name}", labels[name]) for name in STARTER_ENGINES]
    error = ""
    if request.method == "POST":
        name = (request.POST.get("name") or "").strip()
        slug = slugify(request.POST.get("slug") or name)
        upload = request.FILES.get("form_pdf")
        if not name or not slug:
            error = "Give the template a name."
        else:
            try:
                source = (
                    _file_source(upload)
                    if upload is not None
                    else _start_source(request.POST.get("sample") or "", samples)
                )
                if source is None:
                    raise InvalidInput("Choose an engine's starter or a sample to start from.")
                template = template_create(
                    owner=request.user, workspace=workspace, name=name, slug=slug, **source
                )
            except ApplicationError as exc:
                error = public_text(exc.message)
            else:
                return redirect("template-studio", slug=template.slug)
    return render(
        request,
        "jobs/studio_new.html",
        {
            "samples": samples,
            "starters": starters,
            "error": error,
            # A built-in's "New template" link (?sample=invoice) chooses it.
            "chosen": request.POST.get("sample") or request.GET.get("sample") or starters[1][0],
            "form": request.POST,
        },
        status=400 if error else 200,
    )


STARTER_PREFIX = "starter:"


_FILE_KINDS = {FORM_ENGINE: "PDF", DOCX_ENGINE: "Word document"}


def _file_source(upload: UploadedFile[Any]) -> dict[str, str]:
    """An uploaded file as a file template's engine and source: a PDF is a PDF form, a
    .docx a Word template (its schema comes from its fields or tags at save); InvalidInput
    for anything else or past the template limit, read no further than that."""
    limit = limits_from_settings().max_template_bytes * 3 // 4  # base64 grows it by 4/3
    content = upload.read(limit + 1)
    if len(content) > limit:
        raise InvalidInput(f"The file is larger than {limit // 1024} KB, the template limit.")
    if content.startswith(b"%PDF"):
        return {"engine": FORM_ENGINE, "html": form_source(content)}
    if content.startswith(b"PK"):  # a zip: what is in it, docx_file checks at save
        return {"engine": DOCX_ENGINE, "html": docx_source(content)}
    raise InvalidInput("Upload a fillable PDF or a Word document (.docx).")


def _start_source(chosen: str, samples: list[ReportTemplate]) -> dict[str, Any] | None:
    """The new template's source: an engine's starter, a built-in sample's copy, or None."""
    if chosen.startswith(STARTER_PREFIX):
        engine = chosen.removeprefix(STARTER_PREFIX)
        return starter(engine) if engine in STARTER_ENGINES else None
    sample = next((t for t in samples if t.slug == chosen), None)
    return None if sample is None else {field: getattr(sample, field) for field in _SOURCE}
