"""ReportTemplate: a named HTML template, with its engine, CSS and sample data."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Engine(models.TextChoices):
    RAW = "raw", "Raw HTML"
    HANDLEBARS = "handlebars", "Handlebars"
    JINJA2 = "jinja2", "Jinja2 (sandboxed)"


class ReportTemplate(models.Model):
    """A template integrators refer to by slug; owner=None marks a built-in sample for all."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="report_templates",
    )
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100)
    engine = models.CharField(max_length=20, choices=Engine.choices, default=Engine.HANDLEBARS)
    html = models.TextField(help_text="Template source producing an HTML document.")
    css = models.TextField(blank=True, help_text="Extra CSS added to the document's head.")
    sample_data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "slug"], name="template_slug_unique_per_owner"
            ),
            models.UniqueConstraint(
                fields=["slug"],
                condition=models.Q(owner__isnull=True),
                name="builtin_template_slug_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.slug})"
