"""manage.py warm_thumbnails: render the built-in samples' gallery thumbnails ahead of the
first visit (`make run` starts it once the workers answer), so a new gallery shows
pictures at once instead of laying five samples out while the person waits."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from reports.models import ReportTemplate
from reports.thumbnails import template_thumbnail


class Command(BaseCommand):
    help = "Render and cache the gallery thumbnails of the built-in sample templates."

    def handle(self, *args: Any, **options: Any) -> None:
        builtins = ReportTemplate.objects.filter(owner=None, archived_at=None).order_by("name")
        for template in builtins:
            started = time.monotonic()
            # The built-ins belong to no tenant: the warm-up takes a share of its own (0).
            png = template_thumbnail(template=template, tenant_id=0)
            took = time.monotonic() - started
            verdict = f"{len(png):,} bytes" if png is not None else "no preview (see the log)"
            self.stdout.write(f"Thumbnail of {template.slug}: {verdict} in {took:.1f} s")
