"""Template thumbnails render once per template version and are then read from the report
store (a directory here; S3 in tests/jobs/test_s3_store.py); a failure is cached for a
while; one tenant cannot fill the previews queue."""

from __future__ import annotations

from unittest import mock

import pytest

from reports import thumbnails
from tests.factories import ReportTemplateFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _var_dir(settings, tmp_path):
    settings.VAR_DIR = tmp_path


def test_thumbnail_is_rendered_once_then_cached(user, report_storage):
    template = ReportTemplateFactory(owner=user)
    first = thumbnails.template_thumbnail(template=template, tenant_id=user.pk)
    assert first.startswith(b"\x89PNG")
    with mock.patch.object(thumbnails, "preview_request") as render:
        assert thumbnails.template_thumbnail(template=template, tenant_id=user.pk) == first
    render.assert_not_called()
    assert list((report_storage / "thumbnails").glob("*.png")) == [
        report_storage / "thumbnails" / f"{thumbnails.thumbnail_key(template)}.png"
    ]


def test_changing_the_template_or_its_sample_data_changes_the_key(user):
    template = ReportTemplateFactory(owner=user)
    before = thumbnails.thumbnail_key(template)
    template.sample_data = {"title": "Other"}
    assert thumbnails.thumbnail_key(template) != before


def test_publishing_a_template_it_includes_changes_the_key_and_the_picture(user, report_storage):
    from reports.services import template_create, template_update

    footer = template_create(
        owner=user, name="Footer", slug="footer", html="<p>Old footer</p>", engine="liquid"
    )
    page = template_create(
        owner=user,
        name="Page",
        slug="page",
        html="<h1>Page</h1>{% render 'footer' %}",
        engine="liquid",
    )
    first = thumbnails.template_thumbnail(template=page, tenant_id=user.pk)
    before = thumbnails.thumbnail_key(page)
    template_update(template=footer, by=user, html="<h2>A much bigger new footer</h2>")
    page.refresh_from_db()
    assert thumbnails.thumbnail_key(page) != before
    second = thumbnails.template_thumbnail(template=page, tenant_id=user.pk)
    assert second.startswith(b"\x89PNG")
    assert second != first
    assert len(list((report_storage / "thumbnails").glob("*.png"))) == 2


def test_a_template_that_cannot_render_has_no_thumbnail(user, report_storage):
    template = ReportTemplateFactory(owner=user, html="<p>{{shout x}}</p>")
    assert thumbnails.template_thumbnail(template=template, tenant_id=user.pk) is None
    assert list(report_storage.glob("thumbnails/*.png")) == []  # only the failure is kept


def test_a_failed_thumbnail_is_not_rendered_again_until_its_ttl_passes(user, settings):
    import os
    import time

    settings.THUMBNAIL_FAILURE_TTL_SECONDS = 60
    template = ReportTemplateFactory(owner=user, html="<p>{{shout x}}</p>")
    assert thumbnails.template_thumbnail(template=template, tenant_id=user.pk) is None
    failed = thumbnails.thumbnail_dir() / f"{thumbnails.thumbnail_key(template)}.failed"
    assert "shout" in failed.read_text()
    real = thumbnails.preview_request
    with mock.patch.object(thumbnails, "preview_request", wraps=real) as render:
        for _ in range(5):
            assert thumbnails.template_thumbnail(template=template, tenant_id=user.pk) is None
        render.assert_not_called()
        # Once the failure is older than its TTL, the template is tried again.
        old = time.time() - 61
        os.utime(failed, (old, old))
        assert thumbnails.template_thumbnail(template=template, tenant_id=user.pk) is None
        assert render.call_count == 1
    assert time.time() - failed.stat().st_mtime < 5


def _previews_waiting() -> int:
    from core.celery import app

    with app.connection_for_write() as connection:
        return int(connection.default_channel.client.llen("previews"))


def test_one_tenant_sends_at_most_its_share_of_renders_to_the_previews_queue(settings, published):
    """Twelve thumbnails asked for at once by one tenant (no preview worker answers, so
    each that is sent waits its full time): at most PREVIEW_MAX_IN_FLIGHT_PER_TENANT
    reach the queue, the rest are refused at once, and another tenant still gets its own."""
    import uuid
    from concurrent.futures import ThreadPoolExecutor

    from reports.preview_queue import PREVIEW_TASK, PreviewsBusy

    settings.PDF_PREVIEW_IN_PROCESS = False
    settings.PDF_PREVIEW_WAIT_SECONDS = 1
    settings.PDF_PREVIEW_MAX_SECONDS = 1
    settings.PREVIEW_MAX_IN_FLIGHT_PER_TENANT = 3
    greedy, other = (uuid.uuid4().int % 10**9 for _ in range(2))
    templates = [ReportTemplateFactory(html=f"<p>{n}</p>") for n in range(13)]

    def ask(template, tenant):
        try:
            return thumbnails.template_thumbnail(template=template, tenant_id=tenant)
        except PreviewsBusy:
            return "busy"

    before = _previews_waiting()
    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda t: ask(t, greedy), templates[:12]))
    assert answers.count("busy") == 9
    assert answers.count(None) == 3  # sent, and timed out: nobody rendered them
    assert _previews_waiting() - before == 3
    # The greedy tenant's leases are still held (a late worker may render them)...
    # Which three were sent is the threads' race: ask again for one of them.
    sent = templates[answers.index(None)]
    assert ask(sent, greedy) is None  # ...its timed-out thumbnail is cached...
    assert ask(templates[12], greedy) == "busy"  # ...and a new one waits for its share.
    assert ask(templates[12], other) is None  # another tenant's share is its own
    assert _previews_waiting() - before == 4
    assert [m["task"] for m in published("previews")][before:] == [PREVIEW_TASK] * 4
