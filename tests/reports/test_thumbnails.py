"""Template thumbnails render once per template version and are then read from the report
store (a directory here; S3 in tests/e2e/test_s3.py)."""

from __future__ import annotations

from unittest import mock

import pytest

from reports import thumbnails
from tests.factories import ReportTemplateFactory

pytestmark = pytest.mark.django_db


def test_thumbnail_is_rendered_once_then_cached(user, report_storage):
    template = ReportTemplateFactory(owner=user)
    first = thumbnails.template_thumbnail(template=template)
    assert first.startswith(b"\x89PNG")
    with mock.patch.object(thumbnails, "preview_request") as render:
        assert thumbnails.template_thumbnail(template=template) == first
    render.assert_not_called()
    assert list((report_storage / "thumbnails").glob("*.png")) == [
        report_storage / "thumbnails" / f"{thumbnails.thumbnail_key(template)}.png"
    ]


def test_changing_the_template_or_its_sample_data_changes_the_key(user):
    template = ReportTemplateFactory(owner=user)
    before = thumbnails.thumbnail_key(template)
    template.sample_data = {"title": "Other"}
    assert thumbnails.thumbnail_key(template) != before


def test_a_template_that_cannot_render_has_no_thumbnail(user, report_storage):
    template = ReportTemplateFactory(owner=user, html="<p>{{shout x}}</p>")
    assert thumbnails.template_thumbnail(template=template) is None
    assert not (report_storage / "thumbnails").exists()
