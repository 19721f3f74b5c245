"""Writes of the template library: create, update (each save a new version), drafts and
publishing, archive.

The row's versioned fields always mirror its published version, so everything that reads
the row (jobs, thumbnails, the report form) sees what is published; a draft lives only in
its version row until template_publish copies it onto the template."""

from __future__ import annotations

import json
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.sealing import steps_restored, steps_seal, steps_unseal
from accounts.signing_certificates import signing_certificates_check
from accounts.timestamping import timestamp_urls_check
from core.errors import Conflict, NotFound
from rendering.digest_memo import DigestMemo, digest_of
from rendering.engines import (
    ENGINE_NAMES,
    FILE_ENGINES,
    get_engine,
    helpers_check,
    template_file_defaults,
)
from rendering.errors import InvalidInput
from rendering.forms import FORM_ENGINE, form_fields, form_pdf
from rendering.limits import Limits
from rendering.options import parse_options
from rendering.postprocess.steps import parse_steps
from rendering.postprocess.submit import document_submit_check
from rendering.renderers import DEFAULT_RENDERER, RENDERER_NAMES, get_renderer
from reports import selectors
from reports.limits import limits_from_settings
from reports.models import ReportTemplate, ReportTemplateVersion
from reports.partials import template_partials_resolve
from reports.validation import (
    DataValidationError,
    SchemaInvalid,
    data_check_sized,
    data_unstorable_text,
    data_validate,
    schema_check,
    size_check,
)
from workspaces.audit import AuditAction, audit_record
from workspaces.models import Workspace
from workspaces.permissions import Action, authorize, is_api_key
from workspaces.services import workspace_personal

# What a version of a template holds (a change makes a draft); the rest is the template's own.
VERSIONED_FIELDS = (
    "engine",
    "renderer",
    "html",
    "css",
    "helpers",
    "schema",
    "sample_data",
    "options",
    "steps",
)
_UNVERSIONED = ("name", "cache_results", "renderers")
UPDATABLE = (*_UNVERSIONED, *VERSIONED_FIELDS)


def template_slug_check(
    *, workspace: Any, slug: str, template: ReportTemplate | None = None
) -> None:
    """The slug rule for every write (API, admin): a workspace's template may not take a
    built-in's slug, or a slug the workspace already uses (other than `template`'s own), so
    `"template": "invoice"` always names the one the gallery shows. 409 naming it.
    No workspace: a built-in sample (reports.samples), which the rule does not bind."""
    if workspace is None:
        return
    if selectors.template_builtin_slug_taken(slug=slug):
        raise Conflict(
            f"{slug!r} is the slug of a built-in template; choose another slug "
            f"(e.g. {slug + '-copy'!r})."
        )
    mine = ReportTemplate.objects.filter(workspace=workspace, slug=slug)
    if template is not None and template.pk is not None:
        mine = mine.exclude(pk=template.pk)
    if mine.exists():
        raise Conflict(f"You already have a template with slug {slug!r}; choose another.")


# Templates that passed template_validate here, by a digest of all it was given and of the
# limits: the samples synced at every start and in many tests, and a studio save of an
# unchanged template, cost 20-60 ms of schema and sample-data checks each. A pass only.
_validated: DigestMemo[bool] = DigestMemo(256)


def _validation_digest(limits: Limits, *given: Any) -> bytes | None:
    try:
        text = json.dumps(given, sort_keys=True)
    except (TypeError, ValueError):
        return None  # not JSON: checked (and refused) each time
    return digest_of(repr(limits), text)


def template_validate(
    *,
    engine: str,
    html: str,
    css: str,
    schema: Any,
    sample_data: Any,
    renderer: str = DEFAULT_RENDERER,
    helpers: str = "",
    renderers: Any = (),
) -> None:
    """Everything a saved template must satisfy; raise an ApplicationError naming the problem.
    A pass is kept (`_validated`): the same template saved again is not checked again."""
    limits = limits_from_settings()
    digest = _validation_digest(
        limits, engine, html, css, schema, sample_data, renderer, helpers, renderers
    )
    if digest is not None and digest in _validated:
        return
    if not isinstance(renderers, list | tuple) or not all(
        name in RENDERER_NAMES for name in renderers
    ):
        raise InvalidInput(f"renderers must be a list of: {', '.join(RENDERER_NAMES)}.")
    if engine not in ENGINE_NAMES:
        raise InvalidInput(f"Unknown engine {engine!r}; use one of: {', '.join(ENGINE_NAMES)}.")
    get_renderer(renderer)  # an unknown one names the three
    if not isinstance(helpers, str):
        raise InvalidInput("helpers must be a string of JavaScript.")
    size_check("The template", html + css + helpers, limits.max_template_bytes)
    schema_check(schema, limits=limits)
    if problem := data_unstorable_text(schema):
        raise SchemaInvalid(f"schema {problem}, which cannot be stored.")
    _, sample_bytes = data_check_sized(sample_data, limits=limits, name="sample_data")
    get_engine(engine).check(html)
    if engine == FORM_ENGINE:
        # A stored form is one PDF with fields its jobs can fill, even with a schema of its
        # own: the engine's check only sees PDF data, as an inline pdf-form may pass PDFs
        # through as they are. (A Word template's check already parses all of it.)
        form_fields(form_pdf(html))
    helpers_check(engine, helpers, limits)
    # Sample data is optional; a template without it just has no preview data.
    if sample_data:
        try:
            data_validate(schema=schema, data=sample_data, limits=limits, data_bytes=sample_bytes)
        except DataValidationError as exc:
            raise DataValidationError(
                f"sample_data does not match the schema: {exc.message}"
            ) from None
    if digest is not None:
        _validated.put(digest, True)


def template_form_defaults(
    *, engine: str, html: str, schema: dict[str, Any], sample_data: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A file template (a PDF form, a Word document) without a schema gets its file's: each
    field or tag a property, and sample data that fills them all. Others: as given."""
    if engine not in FILE_ENGINES or schema:
        return schema, sample_data
    derived, sample = template_file_defaults(engine, html)
    return derived, sample_data or sample


def template_includes_check(*, workspace: Any, slug: str, engine: str, html: str) -> None:
    """What a template includes by slug is the workspace's own (of its engine), with no
    cycle (a template including itself, directly or not) and no deeper than the bound: a
    template error naming the slug, at save and at publish (reports.partials)."""
    template_partials_resolve(workspace=workspace, engine=engine, html=html, slug=slug)


def template_job_defaults_check(
    *,
    options: Any,
    steps: Any,
    renderer: str,
    workspace: Any,
    stored: Any = None,
    by: Any = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A template's job `options` and `steps`, checked as a submit checks them (a profile
    its renderer cannot produce is a 400 now, at save, not at the first submit); returns
    them normalised, the steps sealed. `stored` (the row's sealed steps) is kept when the
    steps did not change, so a save that changes nothing makes no new version, and a
    password sent back as the placeholder a read shows keeps the stored one. Merge
    sources are checked per submit: a completed job is not the template's to pin. A sign
    step that `by` (a person or key; None: an operator or the samples) adds needs
    certificate.use."""
    options = {} if options is None else options
    parsed = parse_options(options)
    document_submit_check(parsed.pdf, renderer)
    normalised = parse_steps(steps_restored([] if steps is None else steps, stored), parsed.pdf)
    signing_certificates_check(workspace=workspace, steps=normalised)
    signs = [step for step in normalised if step["type"] == "sign"]
    before = [step for step in steps_unseal(stored or []) if step["type"] == "sign"]
    if by is not None and signs and signs != before and workspace is not None:
        authorize(by, Action.CERTIFICATE_USE, workspace)
    timestamp_urls_check(steps=normalised)
    # Stored as sent (checked): a job parses them again under its submit's own, and a
    # normalised copy would pin defaults (page_size) and lose intents (test_mode).
    kept = dict(options) if isinstance(options, dict) else {}
    if stored and steps_unseal(stored) == normalised:
        return kept, stored
    return kept, steps_seal(normalised)


def _person(by: Any) -> Any:
    """The person behind `by` (a key's creator), None for no one."""
    person = by.user if is_api_key(by) else by
    return person if getattr(person, "pk", None) else None


def _audit(template: ReportTemplate, by: Any, action: AuditAction, **changes: Any) -> None:
    if template.workspace_id is not None:  # a built-in sample belongs to no workspace
        audit_record(
            workspace=template.workspace_id,
            actor=by,
            action=action,
            target=template,
            target_id=template.slug,
            changes=changes,
        )


def _snapshot(template: ReportTemplate, *, by: Any) -> ReportTemplateVersion:
    last = template.versions.order_by("-number").values_list("number", flat=True).first()
    version = ReportTemplateVersion.objects.create(
        template=template,
        number=(last or 0) + 1,
        created_by=_person(by),
        **{name: getattr(template, name) for name in VERSIONED_FIELDS},
    )
    return version


@transaction.atomic
def template_create(
    *,
    owner: Any,
    name: str,
    slug: str,
    html: str,
    workspace: Workspace | None = None,
    engine: str = "handlebars",
    css: str = "",
    schema: dict[str, Any] | None = None,
    sample_data: dict[str, Any] | None = None,
    renderer: str = DEFAULT_RENDERER,
    helpers: str = "",
    cache_results: bool = False,
    renderers: list[str] | None = None,
    options: dict[str, Any] | None = None,
    steps: list[Any] | None = None,
    by: Any = None,
) -> ReportTemplate:
    """A template of `workspace` (by default the owner's own); `by` (the owner unless
    given: a person or an API key) is who the audit log names."""
    by = owner if by is None else by
    # Only a missing value defaults to {}: `false` or `[]` must fail validation, not vanish.
    schema = {} if schema is None else schema
    sample_data = {} if sample_data is None else sample_data
    schema, sample_data = template_form_defaults(
        engine=engine, html=html, schema=schema, sample_data=sample_data
    )
    template_validate(
        engine=engine,
        html=html,
        css=css,
        schema=schema,
        sample_data=sample_data,
        renderer=renderer,
        helpers=helpers,
        renderers=renderers or [],
    )
    if workspace is None and owner is not None:
        workspace = workspace_personal(user=owner)
    options, steps = template_job_defaults_check(
        options=options, steps=steps, renderer=renderer, workspace=workspace, by=by
    )
    # owner=None and no workspace: a built-in sample (reports.samples).
    template_slug_check(workspace=workspace, slug=slug)
    template = ReportTemplate.objects.create(
        owner=owner,
        workspace=workspace,
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
        renderers=list(renderers or []),
        options=options,
        steps=steps,
    )
    _audit(template, by, AuditAction.TEMPLATE_CREATED)
    _publish(template, _snapshot(template, by=by), by=by)
    return template


@transaction.atomic
def template_update(*, template: ReportTemplate, by: Any = None, **changes: Any) -> ReportTemplate:
    """Apply changes and publish them; a change to what renders saves a new immutable
    version. What operators (the admin) and the built-in samples use; authors' edits go
    through template_draft_save."""
    _updatable_check(changes)
    stored_steps = template.steps
    changes = _form_changes(template, changes)
    for field, value in changes.items():
        setattr(template, field, value)
    raw_steps = changes["steps"] if "steps" in changes else steps_unseal(stored_steps)
    template_validate(
        engine=template.engine,
        html=template.html,
        css=template.css,
        schema=template.schema,
        sample_data=template.sample_data,
        renderer=template.renderer,
        helpers=template.helpers,
        renderers=template.renderers,
    )
    template.options, template.steps = template_job_defaults_check(
        options=template.options,
        steps=raw_steps,
        renderer=template.renderer,
        workspace=template.workspace,
        stored=stored_steps,
        by=by,
    )
    template.save()
    _audit(template, by, AuditAction.TEMPLATE_CHANGED, fields=sorted(changes))
    template_record_version(template=template, by=by)
    return template


def template_saved_elsewhere(
    *, template: ReportTemplate, by: Any, created: bool, fields: list[str]
) -> ReportTemplateVersion:
    """A template the admin saved itself (its form writes the row): the audit entry the
    services write, then its version if what renders changed."""
    if created:
        _audit(template, by, AuditAction.TEMPLATE_CREATED)
    elif fields:
        _audit(template, by, AuditAction.TEMPLATE_CHANGED, fields=sorted(fields))
    return template_record_version(template=template, by=by)


def _form_changes(base: Any, changes: dict[str, Any]) -> dict[str, Any]:
    """A new file for a file template (a PDF form, a Word document) without a new schema:
    the new file's schema and sample data, so its fields and the data they take stay one."""
    engine = changes.get("engine", base.engine)
    if engine not in FILE_ENGINES or "html" not in changes or "schema" in changes:
        return changes
    schema, sample = template_form_defaults(
        engine=engine, html=changes["html"], schema={}, sample_data={}
    )
    return {"sample_data": sample, **changes, "schema": schema}


def _updatable_check(changes: dict[str, Any]) -> None:
    unknown = sorted(set(changes) - set(UPDATABLE))
    if unknown:
        raise InvalidInput(
            f"Cannot change: {', '.join(unknown)}; a template's updatable fields are "
            f"{', '.join(UPDATABLE)}."
        )


def template_record_version(*, template: ReportTemplate, by: Any = None) -> ReportTemplateVersion:
    """Save the template's current state as a new version unless the latest already is it,
    and publish it: the row was changed in place (the admin), so it is what jobs render."""
    latest = template.latest_version
    if latest is not None and all(
        getattr(latest, f) == getattr(template, f) for f in VERSIONED_FIELDS
    ):
        version = latest
    else:
        version = _snapshot(template, by=by)
    if template.published_version_id != version.pk:
        _publish(template, version, by=by)
    return version


def _publish(template: ReportTemplate, version: ReportTemplateVersion, *, by: Any) -> None:
    """Make `version` what jobs render: its fields onto the row, who and when recorded.
    What it includes is checked again: the partials may have changed since it was saved."""
    template_includes_check(
        workspace=template.workspace_id,
        slug=template.slug,
        engine=version.engine,
        html=version.html,
    )
    for name in VERSIONED_FIELDS:
        setattr(template, name, getattr(version, name))
    template.published_version = version
    template.published_by = _person(by)
    template.published_at = timezone.now()
    if template.draft_version_id == version.pk:
        template.draft_version = None
    template.save()
    _audit(template, by, AuditAction.TEMPLATE_PUBLISHED, version=version.number)


def _locked(template: ReportTemplate) -> ReportTemplate:
    """The template's row, locked until the transaction ends: two saves at once (a double
    Ctrl-S, two tabs) take turns instead of colliding on the next version number."""
    return ReportTemplate.objects.select_for_update().get(pk=template.pk)


def template_draft(*, template: ReportTemplate) -> ReportTemplateVersion | None:
    """The unpublished edit in progress, if any."""
    return template.draft_version if template.draft_version_id else None


@transaction.atomic
def template_draft_save(
    *, template: ReportTemplate, by: Any = None, **changes: Any
) -> ReportTemplate:
    """An author's edit: the name, cache and renderers list change at once (they do not
    change what renders); changes to what renders become the draft, a new version built on
    the current draft (or the published version) that no job renders until it is published.
    Checked exactly as a published save is, so publishing never meets a broken version."""
    _updatable_check(changes)
    template = _locked(template)
    base: Any = template_draft(template=template) or template
    changes = _form_changes(base, changes)
    fields = {name: getattr(base, name) for name in VERSIONED_FIELDS}
    fields.update({k: v for k, v in changes.items() if k in VERSIONED_FIELDS})
    renderers = changes.get("renderers", template.renderers)
    template_validate(
        engine=fields["engine"],
        html=fields["html"],
        css=fields["css"],
        schema=fields["schema"],
        sample_data=fields["sample_data"],
        renderer=fields["renderer"],
        helpers=fields["helpers"],
        renderers=renderers,
    )
    template_includes_check(
        workspace=template.workspace_id,
        slug=template.slug,
        engine=fields["engine"],
        html=fields["html"],
    )
    raw_steps = changes["steps"] if "steps" in changes else steps_unseal(base.steps)
    fields["options"], fields["steps"] = template_job_defaults_check(
        options=fields["options"],
        steps=raw_steps,
        renderer=fields["renderer"],
        workspace=template.workspace,
        stored=base.steps,
        by=by,
    )
    for name in _UNVERSIONED:
        if name in changes:
            setattr(template, name, changes[name])
    drafted: dict[str, int] = {}  # the audit entry names the draft a change made
    published = template.published_version
    if published is not None and all(getattr(published, f) == fields[f] for f in VERSIONED_FIELDS):
        template.draft_version = None  # edited back to what is published: nothing to publish
    elif any(getattr(base, f) != fields[f] for f in VERSIONED_FIELDS):
        last = template.versions.order_by("-number").values_list("number", flat=True).first()
        template.draft_version = ReportTemplateVersion.objects.create(
            template=template,
            number=(last or 0) + 1,
            created_by=_person(by),
            **fields,
        )
        drafted = {"draft": template.draft_version.number}
    template.save()
    if changes:
        _audit(template, by, AuditAction.TEMPLATE_CHANGED, fields=sorted(changes), **drafted)
    return template


@transaction.atomic
def template_publish(*, template: ReportTemplate, by: Any = None) -> ReportTemplate:
    """The draft becomes what new jobs render; without a draft, nothing changes."""
    template = _locked(template)
    draft = template_draft(template=template)
    if draft is not None:
        _publish(template, draft, by=by)
    return template


@transaction.atomic
def template_rollback(*, template: ReportTemplate, number: int, by: Any = None) -> ReportTemplate:
    """Publish an earlier (or any) version again; a draft in progress stays a draft."""
    template = _locked(template)
    version = template.versions.filter(number=number).first()
    if version is None:
        raise NotFound(f"Template {template.slug!r} has no version {number}.")
    if template.published_version_id != version.pk:
        _publish(template, version, by=by)
    return template


def template_current_version(*, template: ReportTemplate) -> ReportTemplateVersion:
    """The version new jobs render (the published one); a row saved before versioning gets
    its first one now."""
    if template.published_version_id is not None:
        return template.published_version  # type: ignore[return-value]
    latest = template.latest_version
    if latest is not None:
        return latest
    try:
        with transaction.atomic():
            # Version 1 by name: of concurrent first uses (a preview flood) one inserts it,
            # the others collide on the unique number and read it.
            return ReportTemplateVersion.objects.create(
                template=template,
                number=1,
                created_by=None,
                **{name: getattr(template, name) for name in VERSIONED_FIELDS},
            )
    except IntegrityError:
        found = template.versions.order_by("-number").first()
        if found is None:
            raise
        return found


def template_archive(*, template: ReportTemplate, by: Any = None) -> ReportTemplate:
    if template.archived_at is None:
        template.archived_at = timezone.now()
        template.save(update_fields=["archived_at", "updated_at"])
        _audit(template, by, AuditAction.TEMPLATE_ARCHIVED)
    return template


def template_unarchive(*, template: ReportTemplate, by: Any = None) -> ReportTemplate:
    if template.archived_at is not None:
        template.archived_at = None
        template.save(update_fields=["archived_at", "updated_at"])
        _audit(template, by, AuditAction.TEMPLATE_RESTORED)
    return template
