"""The template library: every save is an immutable version; schema and sample data checked."""

from __future__ import annotations

import pytest

from core.errors import Conflict
from rendering.errors import LimitExceeded, RenderError, TemplateSyntaxError
from reports.models import ReportTemplate, ReportTemplateVersion
from reports.services import (
    template_archive,
    template_create,
    template_current_version,
    template_update,
)
from reports.validation import DataValidationError
from tests.factories import ReportTemplateFactory

pytestmark = pytest.mark.django_db
SCHEMA = {"type": "object", "properties": {"n": {"type": "number"}}}


def _create(user, **fields):
    base = {"name": "T", "slug": "t", "html": "<p>{{n}}</p>", "schema": SCHEMA}
    return template_create(owner=user, **(base | fields))


def test_create_saves_version_one_with_the_schema(user):
    template = _create(user, sample_data={"n": 1})
    version = template.latest_version
    assert (version.number, version.html, version.schema) == (1, "<p>{{n}}</p>", SCHEMA)
    assert template.schema == SCHEMA


def test_every_change_that_renders_differently_is_a_new_version(user):
    template = _create(user)
    template_update(template=template, by=user, html="<h1>{{n}}</h1>")
    template_update(template=template, by=user, name="Renamed")  # not rendered: no version
    template_update(template=template, by=user, css="h1 { color: red; }")
    numbers = list(template.versions.order_by("number").values_list("number", "html", "css"))
    assert numbers == [
        (1, "<p>{{n}}</p>", ""),
        (2, "<h1>{{n}}</h1>", ""),
        (3, "<h1>{{n}}</h1>", "h1 { color: red; }"),
    ]


def test_a_version_cannot_be_changed(user):
    version = _create(user).latest_version
    version.html = "tampered"
    with pytest.raises(ValueError, match="immutable"):
        version.save()
    assert ReportTemplateVersion.objects.get(pk=version.pk).html == "<p>{{n}}</p>"


def test_sample_data_must_match_the_schema(user):
    with pytest.raises(RenderError, match=r"sample_data does not match the schema: n: expected"):
        _create(user, sample_data={"n": "one"})


def test_syntax_errors_and_oversized_templates_are_refused(user, settings):
    with pytest.raises(TemplateSyntaxError, match="line 2"):
        _create(user, html="<p>\n{{#each x}}</p>")
    settings.PDF_MAX_TEMPLATE_BYTES = 1024
    with pytest.raises(LimitExceeded, match="limit is 1024"):
        _create(user, html="x" * 2000)


@pytest.mark.parametrize(
    ("engine", "good", "bad"),
    [
        ("liquid", "<p>{{ n }}</p>", "<p>\n{% if n %}</p>"),
        ("django", "<p>{{ n }}</p>", "<p>\n{% if n %}</p>"),
        ("mustache", "<p>{{n}}</p>", "<p>\n{{#each n}}{{/each}}</p>"),
        ("ejs", "<p><%= n %></p>", "<p>\n<%= n </p>"),
    ],
)
def test_each_engine_is_checked_at_save(user, engine, good, bad):
    template = _create(user, engine=engine, html=good, sample_data={"n": 1})
    assert template.latest_version.engine == engine
    assert template.get_engine_display() != engine  # the registry's label
    with pytest.raises(TemplateSyntaxError, match="line 2"):
        _create(user, slug="bad", engine=engine, html=bad)


def test_duplicate_slug_for_the_same_owner_is_refused(user):
    _create(user)
    with pytest.raises(Conflict, match="already have a template with slug 't'") as refused:
        _create(user)
    assert refused.value.http_status == 409


def test_rows_saved_before_versioning_get_their_first_version_on_use(user):
    template = ReportTemplateFactory(owner=user)
    assert template.latest_version is None
    assert template_current_version(template=template).number == 1
    assert template_current_version(template=template).number == 1


def test_archive_keeps_versions(user):
    template = template_archive(template=_create(user))
    assert template.is_archived
    assert template.versions.count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_uses_of_an_unversioned_template_share_version_one():
    """A preview flood on a template saved before versioning: every request gets the one
    version 1 (the losers of the insert race read the winner's), none a 500."""
    import threading

    from django.db import connection

    from reports.services import template_current_version

    for _ in range(3):
        template = ReportTemplateFactory()
        ReportTemplateVersion.objects.filter(template=template).delete()
        start = threading.Barrier(6)
        found, errors = [], []

        def first_use(template=template, start=start, found=found, errors=errors) -> None:
            try:
                start.wait()
                found.append(template_current_version(template=template).number)
            except Exception as exc:  # collected: the assertion below names it
                errors.append(repr(exc))
            finally:
                connection.close()

        threads = [threading.Thread(target=first_use) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert errors == []
        assert found == [1] * 6
        assert ReportTemplateVersion.objects.filter(template=template).count() == 1


def test_the_migration_rule_a_template_without_a_published_version_renders_its_latest(user):
    """Rows saved before drafts (no published_version) keep rendering their latest."""
    from reports import selectors as template_selectors

    template = template_create(owner=user, name="Old", slug="old", html="<p>1</p>")
    template_update(template=template, by=user, html="<p>2</p>")
    ReportTemplate.objects.filter(pk=template.pk).update(published_version=None)
    found = template_selectors.template_latest_version_visible(
        workspace=template.workspace, slug="old"
    )
    assert found is not None
    assert found.number == 2


def test_a_template_that_passed_is_not_validated_again_until_it_or_the_limits_change(
    monkeypatch, settings
):
    from reports import services

    services._validated.clear()
    given = {
        "engine": "jinja2",
        "html": "<h1>{{ title }}</h1>",
        "css": "",
        "schema": {"type": "object", "properties": {"title": {"type": "string"}}},
        "sample_data": {"title": "kept"},
    }
    services.template_validate(**given)
    checks: list[object] = []
    monkeypatch.setattr(services, "schema_check", lambda *a, **k: checks.append(a))
    services.template_validate(**given)
    assert checks == []  # the pass was kept
    services.template_validate(**{**given, "sample_data": {"title": "other"}})
    assert len(checks) == 1  # other input: checked
    settings.PDF_MAX_TEMPLATE_BYTES += 1
    services.template_validate(**given)
    assert len(checks) == 2  # other limits: checked again
    monkeypatch.undo()
    for _ in range(2):  # a failing one is refused each time
        with pytest.raises(DataValidationError):
            services.template_validate(**{**given, "sample_data": {"title": 5}})
