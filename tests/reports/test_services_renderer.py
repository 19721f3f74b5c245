"""A template's renderer and helpers are part of what it renders: validated, versioned."""

from __future__ import annotations

import pytest

from rendering.errors import InvalidInput, TemplateSyntaxError
from rendering.renderers import RENDERER_NAMES
from reports.models import Renderer
from reports.services import template_create, template_update

pytestmark = pytest.mark.django_db


def _create(user, **fields):
    base = {"name": "T", "slug": "t", "html": "<p>{{total items}}</p>"}
    return template_create(owner=user, **(base | fields))


def test_the_model_offers_exactly_the_renderers_there_are():
    assert tuple(Renderer.values) == RENDERER_NAMES


def test_renderer_and_helpers_are_saved_in_the_version(user):
    helpers = "function total(items) { return items.length; }"
    template = _create(user, renderer="weasyprint", helpers=helpers)
    version = template.latest_version
    assert (version.renderer, version.helpers) == ("weasyprint", helpers)


def test_the_default_renderer_is_xhtml2pdf(user):
    assert _create(user, html="<p>x</p>").latest_version.renderer == "xhtml2pdf"


def test_changing_the_renderer_saves_a_new_version_and_keeps_the_old(user):
    template = _create(user, html="<p>x</p>")
    template_update(template=template, renderer="chromium")
    versions = list(template.versions.order_by("number").values_list("number", "renderer"))
    assert versions == [(1, "xhtml2pdf"), (2, "chromium")]


def test_an_unknown_renderer_lists_the_valid_ones(user):
    with pytest.raises(InvalidInput, match="use one of: xhtml2pdf, weasyprint, chromium"):
        _create(user, html="<p>x</p>", renderer="prince")


def test_helpers_with_a_syntax_error_are_refused_with_the_line(user):
    with pytest.raises(TemplateSyntaxError, match="line 2") as failure:
        _create(user, helpers="function total(items) {\n  return items.length +;\n}")
    assert failure.value.line == 2
