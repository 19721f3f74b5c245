"""Template thumbnails render once per template version and are then read from disk."""

from __future__ import annotations

from unittest import mock

import pytest

from reports import thumbnails
from tests.factories import ReportTemplateFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _var_dir(settings, tmp_path):
    settings.VAR_DIR = tmp_path


def test_thumbnail_is_rendered_once_then_cached(user):
    template = ReportTemplateFactory(owner=user)
    first = thumbnails.template_thumbnail(template=template)
    assert first.startswith(b"\x89PNG")
    with mock.patch.object(thumbnails, "template_preview_png") as render:
        assert thumbnails.template_thumbnail(template=template) == first
    render.assert_not_called()
    assert list(thumbnails.thumbnail_dir().glob("*.png")) == [
        thumbnails.thumbnail_dir() / f"{thumbnails.thumbnail_key(template)}.png"
    ]


def test_changing_the_template_or_its_sample_data_changes_the_key(user):
    template = ReportTemplateFactory(owner=user)
    before = thumbnails.thumbnail_key(template)
    template.sample_data = {"title": "Other"}
    assert thumbnails.thumbnail_key(template) != before


def test_a_template_that_cannot_render_has_no_thumbnail(user):
    template = ReportTemplateFactory(owner=user, html="<p>{{shout x}}</p>")
    assert thumbnails.template_thumbnail(template=template) is None
    assert not thumbnails.thumbnail_dir().exists()
