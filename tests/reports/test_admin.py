"""Staff edit templates in the admin: each save that changes the rendering is a new version."""

from __future__ import annotations

import html
import json
import re

import pytest

from reports.models import ReportTemplate
from reports.samples import template_sync_samples
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    staff = UserFactory(username="staff", is_staff=True, is_superuser=True)
    client.force_login(staff)
    return client


def _form(**fields: str) -> dict[str, str]:
    base = {
        "name": "Letter",
        "slug": "letter",
        "engine": "handlebars",
        "html": "<p>{{who}}</p>",
        "css": "",
        "schema": '{"type": "object"}',
        "sample_data": '{"who": "Ada"}',
        "versions-TOTAL_FORMS": "0",
        "versions-INITIAL_FORMS": "0",
    }
    return base | fields


def test_admin_add_and_change_record_versions(staff_client):
    response = staff_client.post("/admin/reports/reporttemplate/add/", _form())
    assert response.status_code == 302, response.content[:2000]
    template = ReportTemplate.objects.get(slug="letter")
    staff_client.post(
        f"/admin/reports/reporttemplate/{template.pk}/change/", _form(html="<h1>{{who}}</h1>")
    )
    versions = list(template.versions.order_by("number").values_list("number", "html"))
    assert versions == [(1, "<p>{{who}}</p>"), (2, "<h1>{{who}}</h1>")]


def test_admin_refuses_a_template_with_a_syntax_error(staff_client):
    response = staff_client.post(
        "/admin/reports/reporttemplate/add/", _form(html="<p>\n{{#each x}}</p>")
    )
    assert response.status_code == 200
    assert b"line 2" in response.content
    assert not ReportTemplate.objects.exists()


def test_admin_refuses_a_built_in_slug_for_an_owned_template(staff_client):
    template_sync_samples()
    owner = UserFactory()
    response = staff_client.post(
        "/admin/reports/reporttemplate/add/", _form(slug="invoice", owner=str(owner.pk))
    )
    assert response.status_code == 200
    assert b"slug of a built-in template" in response.content
    assert not ReportTemplate.objects.filter(owner=owner).exists()


def test_admin_refuses_renaming_an_owned_template_to_a_built_in_slug(staff_client):
    template_sync_samples()
    owner = UserFactory()
    staff_client.post("/admin/reports/reporttemplate/add/", _form(owner=str(owner.pk)))
    template = ReportTemplate.objects.get(owner=owner, slug="letter")
    response = staff_client.post(
        f"/admin/reports/reporttemplate/{template.pk}/change/",
        _form(owner=str(owner.pk), slug="invoice"),
    )
    assert response.status_code == 200
    assert b"slug of a built-in template" in response.content
    template.refresh_from_db()
    assert template.slug == "letter"


def test_admin_refuses_sample_data_that_fails_the_schema(staff_client):
    response = staff_client.post(
        "/admin/reports/reporttemplate/add/",
        _form(schema='{"type": "object", "required": ["company"]}'),
    )
    assert response.status_code == 200
    assert b"sample_data does not match the schema" in response.content
    assert not ReportTemplate.objects.exists()


ENCRYPT = {"type": "encrypt", "user_password": "reader-pw", "owner_password": "owner-pw-1"}


def _textarea(page: bytes, name: str) -> str:
    found = re.search(rf'<textarea name="{name}"[^>]*>(.*?)</textarea>', page.decode(), re.S)
    assert found is not None, name
    return html.unescape(found.group(1)).strip()


def test_admin_edits_options_and_steps_and_never_shows_a_sealed_password(staff_client):
    owner = UserFactory()
    added = staff_client.post(
        "/admin/reports/reporttemplate/add/",
        _form(
            owner=str(owner.pk),
            renderer="weasyprint",
            options='{"pdf": {"profile": "pdf/ua-1", "metadata": {"title": "L", "lang": "en"}}}',
            steps=json.dumps([{"type": "stamp", "text": "COPY"}, ENCRYPT]),
        ),
    )
    assert added.status_code == 302, added.content[:3000]
    template = ReportTemplate.objects.get(owner=owner, slug="letter")
    sealed = template.steps[1]["sealed_passwords"]
    assert "reader-pw" not in json.dumps(template.steps)
    assert template.options["pdf"]["profile"] == "pdf/ua-1"
    url = f"/admin/reports/reporttemplate/{template.pk}/change/"
    page = staff_client.get(url).content
    for secret in ("reader-pw", "owner-pw-1", sealed):
        assert secret.encode() not in page
    shown = json.loads(_textarea(page, "steps"))
    assert shown[1]["owner_password"] == "[sealed]"
    # Saved back as shown (placeholders): the stored sealed value stays, no new version.
    saved = staff_client.post(
        url,
        _form(
            owner=str(owner.pk),
            renderer="weasyprint",
            options=_textarea(page, "options"),
            steps=_textarea(page, "steps"),
        ),
    )
    assert saved.status_code == 302, saved.content[:3000]
    template.refresh_from_db()
    assert template.steps[1]["sealed_passwords"] == sealed
    assert template.versions.count() == 1


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"steps": '[{"type": "stamp", "text": ""}]'}, b"steps[0]: stamp.text must be"),
        ({"options": '{"pdf": {"profile": "pdf/a-2b"}}'}, b"use renderer"),
        ({"steps": json.dumps([ENCRYPT | {"owner_password": "[sealed]"}])}, b"[sealed]"),
    ],
)
def test_admin_checks_options_and_steps_as_the_api_does(staff_client, fields, message):
    response = staff_client.post("/admin/reports/reporttemplate/add/", _form(**fields))
    assert response.status_code == 200
    assert message in html.unescape(response.content.decode()).encode()
    assert not ReportTemplate.objects.exists()
