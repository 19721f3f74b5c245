"""manage.py warm_thumbnails renders every built-in sample's gallery picture once, so the
first gallery visit reads them from the cache."""

from __future__ import annotations

import io
import time

import pytest
from django.core.files.storage import storages
from django.core.management import call_command

from reports import thumbnails
from reports.models import ReportTemplate
from reports.samples import SAMPLES, template_sync_samples
from tests.factories import ReportTemplateFactory

pytestmark = [pytest.mark.heavy, pytest.mark.django_db, pytest.mark.timeout(240)]


def test_every_builtin_sample_is_rendered_and_then_read_from_the_cache(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    # The 50-page sample's first page takes ~6 s alone; a busy test machine can double it.
    settings.PDF_PREVIEW_MAX_SECONDS = 120
    template_sync_samples()
    ReportTemplateFactory(slug="mine")  # someone's own template: rendered when first asked
    out = io.StringIO()
    call_command("warm_thumbnails", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(SAMPLES)
    assert all(" bytes in " in line for line in lines), lines
    store = storages["reports"]  # the pictures are kept beside the PDFs (S3 in production)
    for template in ReportTemplate.objects.filter(owner=None):
        name = f"{thumbnails.THUMBNAIL_PREFIX}{thumbnails.thumbnail_key(template)}.png"
        with store.open(name) as cached:
            assert cached.read().startswith(b"\x89PNG")
    assert len(store.listdir(thumbnails.THUMBNAIL_PREFIX.rstrip("/"))[1]) == len(SAMPLES)

    started = time.monotonic()
    for template in ReportTemplate.objects.filter(owner=None):
        assert thumbnails.template_thumbnail(template=template, tenant_id=0) is not None
    assert time.monotonic() - started < 1  # the gallery's requests now only read files
