"""Writes of the template library: create, update (each save a new version), archive."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from rendering.engines import ENGINE_NAMES, get_engine, helpers_check
from rendering.errors import RenderError
from rendering.renderers import DEFAULT_RENDERER, get_renderer
from reports.limits import limits_from_settings
from reports.models import ReportTemplate, ReportTemplateVersion
from reports.validation import (
    DataValidationError,
    SchemaInvalid,
    data_check,
    data_unstorable_text,
    data_validate,
    schema_check,
    size_check,
)

_VERSIONED = ("engine", "renderer", "html", "css", "helpers", "schema", "sample_data")


def template_validate(
    *,
    engine: str,
    html: str,
    css: str,
    schema: Any,
    sample_data: Any,
    renderer: str = DEFAULT_RENDERER,
    helpers: str = "",
) -> None:
    """Everything a saved template must satisfy; raise an ApplicationError naming the problem."""
    if engine not in ENGINE_NAMES:
        raise RenderError(f"Unknown engine {engine!r}; use one of: {', '.join(ENGINE_NAMES)}.")
    get_renderer(renderer)  # an unknown one names the three
    if not isinstance(helpers, str):
        raise RenderError("helpers must be a string of JavaScript.")
    limits = limits_from_settings()
    size_check("The template", html + css + helpers, limits.max_template_bytes)
    schema_check(schema, limits=limits)
    if problem := data_unstorable_text(schema):
        raise SchemaInvalid(f"schema {problem}, which cannot be stored.")
    data_check(sample_data, limits=limits, name="sample_data")
    get_engine(engine).check(html)
    helpers_check(engine, helpers, limits)
    if not sample_data:
        return  # sample data is optional; a template without it just has no preview data
    try:
        data_validate(schema=schema, data=sample_data, limits=limits)
    except DataValidationError as exc:
        raise DataValidationError(f"sample_data does not match the schema: {exc.message}") from None


def _snapshot(template: ReportTemplate, *, by: Any) -> ReportTemplateVersion:
    last = template.versions.order_by("-number").values_list("number", flat=True).first()
    return ReportTemplateVersion.objects.create(
        template=template,
        number=(last or 0) + 1,
        created_by=by if getattr(by, "pk", None) else None,
        **{name: getattr(template, name) for name in _VERSIONED},
    )


@transaction.atomic
def template_create(
    *,
    owner: Any,
    name: str,
    slug: str,
    html: str,
    engine: str = "handlebars",
    css: str = "",
    schema: dict[str, Any] | None = None,
    sample_data: dict[str, Any] | None = None,
    renderer: str = DEFAULT_RENDERER,
    helpers: str = "",
    cache_results: bool = False,
) -> ReportTemplate:
    # Only a missing value defaults to {}: `false` or `[]` must fail validation, not vanish.
    schema = {} if schema is None else schema
    sample_data = {} if sample_data is None else sample_data
    template_validate(
        engine=engine,
        html=html,
        css=css,
        schema=schema,
        sample_data=sample_data,
        renderer=renderer,
        helpers=helpers,
    )
    if ReportTemplate.objects.filter(owner=owner, slug=slug).exists():
        raise RenderError(f"You already have a template with slug {slug!r}.")
    template = ReportTemplate.objects.create(
        owner=owner,
        name=name,
        slug=slug,
        engine=engine,
        renderer=renderer,
        html=html,
        css=css,
        helpers=helpers,
        schema=schema,
        sample_data=sample_data,
        cache_results=cache_results,
    )
    _snapshot(template, by=owner)
    return template


@transaction.atomic
def template_update(*, template: ReportTemplate, by: Any = None, **changes: Any) -> ReportTemplate:
    """Apply changes; a change to what renders saves a new immutable version."""
    allowed = {"name", "cache_results", *_VERSIONED}
    unknown = sorted(set(changes) - allowed)
    if unknown:
        raise RenderError(f"Cannot change: {', '.join(unknown)}.")
    for field, value in changes.items():
        setattr(template, field, value)
    template_validate(
        engine=template.engine,
        html=template.html,
        css=template.css,
        schema=template.schema,
        sample_data=template.sample_data,
        renderer=template.renderer,
        helpers=template.helpers,
    )
    template.save()
    template_record_version(template=template, by=by)
    return template


def template_record_version(*, template: ReportTemplate, by: Any = None) -> ReportTemplateVersion:
    """Save the template's current state as a new version unless the latest already is it."""
    latest = template.latest_version
    if latest is not None and all(getattr(latest, f) == getattr(template, f) for f in _VERSIONED):
        return latest
    return _snapshot(template, by=by)


def template_current_version(*, template: ReportTemplate) -> ReportTemplateVersion:
    """The version new jobs render; a row saved before versioning gets its first one now."""
    latest = template.latest_version
    if latest is not None:
        return latest
    with transaction.atomic():
        return _snapshot(template, by=None)


def template_archive(*, template: ReportTemplate) -> ReportTemplate:
    if template.archived_at is None:
        template.archived_at = timezone.now()
        template.save(update_fields=["archived_at", "updated_at"])
    return template


def template_unarchive(*, template: ReportTemplate) -> ReportTemplate:
    if template.archived_at is not None:
        template.archived_at = None
        template.save(update_fields=["archived_at", "updated_at"])
    return template
