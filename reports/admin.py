"""Staff maintain the template library here."""

from django.contrib import admin

from reports.models import ReportTemplate


@admin.register(ReportTemplate)
class ReportTemplateAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "engine", "owner", "updated_at")
    list_filter = ("engine",)
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
