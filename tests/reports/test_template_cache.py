"""A submit's template comes from the process's cache until a template change commits."""

from __future__ import annotations

import pytest

from reports import template_cache
from reports.services import template_archive, template_create, template_update

pytestmark = pytest.mark.django_db(transaction=True)


def _create(user):
    return template_create(owner=user, name="T", slug="cached", html="<p>{{n}}</p>")


def test_a_second_lookup_is_a_hit_and_a_committed_change_a_miss(user, django_assert_num_queries):
    template = _create(user)
    workspace = template.workspace
    first = template_cache.template_latest_version_cached(workspace=workspace, slug="cached")
    assert first is not None
    assert first.number == 1
    with django_assert_num_queries(0):
        again = template_cache.template_latest_version_cached(workspace=workspace, slug="cached")
    assert again is first
    template_update(template=template, by=user, html="<h1>{{n}}</h1>")
    newer = template_cache.template_latest_version_cached(workspace=workspace, slug="cached")
    assert newer is not None
    assert newer.html == "<h1>{{n}}</h1>"
    template_archive(template=template)
    archived = template_cache.template_latest_version_cached(workspace=workspace, slug="cached")
    assert archived is not None
    assert archived.template.is_archived


def test_uncommitted_template_writes_read_past_the_cache(user):
    from django.db import transaction

    template = _create(user)
    workspace = template.workspace
    template_cache.template_latest_version_cached(workspace=workspace, slug="cached")
    with transaction.atomic():
        template_archive(template=template)
        seen = template_cache.template_latest_version_cached(workspace=workspace, slug="cached")
        assert seen is not None
        assert seen.template.is_archived
    again = template_cache.template_latest_version_cached(workspace=workspace, slug="cached")
    assert again is not None
    assert again.template.is_archived
