"""ReportTemplate (a named, editable template) and its immutable ReportTemplateVersion rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models

from core.model_links import kept_link, workspace_link
from core.write_once import WriteOnceModel
from rendering.engines import engine_choices

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from core.model_links import OptionalLink
    from workspaces.models import Workspace


class Renderer(models.TextChoices):
    """The layout engines of rendering/renderers; xhtml2pdf stays the default."""

    XHTML2PDF = "xhtml2pdf", "xhtml2pdf (CSS 2.1, <pdf:…> tags, @frame)"
    WEASYPRINT = "weasyprint", "WeasyPrint (modern print CSS, no scripts)"
    CHROMIUM = "chromium", "Chromium (a browser's layout, runs the template's scripts)"


class ReportTemplate(models.Model):
    """A template integrators refer to by slug in its workspace; workspace=None marks a
    built-in sample for all. `owner` is who created it."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="report_templates",
    )
    # The workspace that owns the template; None, with owner None, is a built-in sample.
    workspace: OptionalLink[Workspace] = workspace_link("report_templates")
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100)
    engine = models.CharField(max_length=20, choices=engine_choices, default="handlebars")
    # Renderers the template is made for (empty: any); a job on another gets a warning.
    renderers = models.JSONField(default=list, blank=True)
    renderer = models.CharField(
        max_length=20,
        choices=Renderer.choices,
        default=Renderer.XHTML2PDF,
        help_text="What lays the HTML out as pages.",
    )
    html = models.TextField(help_text="Template source producing an HTML document.")
    css = models.TextField(blank=True, help_text="Extra CSS added to the document's head.")
    helpers = models.TextField(
        blank=True,
        help_text="JavaScript whose top-level functions become Handlebars helpers.",
    )
    schema = models.JSONField(
        default=dict, blank=True, help_text="JSON Schema the data of every job must match."
    )
    sample_data = models.JSONField(default=dict, blank=True)
    archived_at = models.DateTimeField(
        null=True, blank=True, help_text="Archived templates keep their versions but take no jobs."
    )
    cache_results = models.BooleanField(
        default=False,
        help_text="Submits reuse an identical earlier PDF unless they say cache: false.",
    )
    # A job's defaults: `options` (e.g. options.pdf.profile) under the submit's own, and
    # `steps` unless the submit sends steps. Steps are stored sealed (accounts.sealing).
    options = models.JSONField(default=dict, blank=True)
    steps = models.JSONField(default=list, blank=True)
    # What jobs render (the row's own versioned fields mirror it), and the unpublished edit
    # in progress: a half-finished edit never reaches a job until it is published.
    published_version: OptionalLink[ReportTemplateVersion] = kept_link("ReportTemplateVersion")
    draft_version: OptionalLink[ReportTemplateVersion] = kept_link("ReportTemplateVersion")
    published_by: OptionalLink[User] = kept_link(settings.AUTH_USER_MODEL)
    published_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            # A submit names a template by slug within its workspace.
            models.UniqueConstraint(
                fields=["workspace", "slug"], name="template_slug_unique_per_workspace"
            ),
            models.UniqueConstraint(
                fields=["slug"],
                condition=models.Q(owner__isnull=True),
                name="builtin_template_slug_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.slug})"

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    @property
    def latest_version(self) -> ReportTemplateVersion | None:
        return self.versions.order_by("-number").first()


class ReportTemplateVersion(WriteOnceModel):
    """One saved state of a template. Never updated: a job renders exactly the version it
    recorded, so a re-drive months later produces the same document."""

    rewrite_message = "A template version is immutable; save a new version instead."

    template = models.ForeignKey(ReportTemplate, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    engine = models.CharField(max_length=20, choices=engine_choices)
    renderer = models.CharField(max_length=20, choices=Renderer.choices, default=Renderer.XHTML2PDF)
    html = models.TextField()
    css = models.TextField(blank=True)
    helpers = models.TextField(blank=True)
    schema = models.JSONField(default=dict, blank=True)
    sample_data = models.JSONField(default=dict, blank=True)
    options = models.JSONField(default=dict, blank=True)
    steps = models.JSONField(default=list, blank=True)
    created_by: OptionalLink[User] = kept_link(settings.AUTH_USER_MODEL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["template", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["template", "number"], name="template_version_number_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.template.slug} v{self.number}"
