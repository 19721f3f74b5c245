"""The visual diff: both versions rendered with the same data, per page changed pixels and
an overlay, the source diff; the page images served to the workspace that asked."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from rest_framework.test import APIClient

from accounts.services import api_key_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/v1/templates"
# Two pages; only the second page's line changes in the draft.
PAGES = """<p>Page one for {{who}}</p>
<pdf:nextpage />
<p>{{line}}</p>"""


@pytest.fixture
def two_pages(api):
    body = {"slug": "two", "name": "Two", "html": PAGES.replace("{{line}}", "Total: 10 EUR")}
    body["sample_data"] = {"who": "Ada"}
    assert api.post(URL, body, format="json").status_code == 201
    changed = PAGES.replace("{{line}}", "Total: 99 EUR, due in 30 days")
    assert api.patch(f"{URL}/two", {"html": changed}, format="json").json()["draft_version"] == 2
    return f"{URL}/two"


def _png(api, url: str) -> Image.Image:
    response = api.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    return Image.open(io.BytesIO(response.content))


def test_a_changed_line_marks_its_page_and_only_it(api, two_pages):
    response = api.get(f"{two_pages}/diff", {"from": "1", "to": "draft"})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["from_version"], body["to_version"]) == (1, 2)
    pages = {page["page"]: page for page in body["pages"]}
    assert set(pages) == {1, 2}
    assert pages[1]["changed_pixels"] == 0
    assert pages[2]["changed_pixels"] > 0
    assert "-<p>Total: 10 EUR</p>" in body["source_diff"]
    assert "+<p>Total: 99 EUR, due in 30 days</p>" in body["source_diff"]
    assert "v1/template.html" in body["source_diff"]
    overlay = _png(api, pages[2]["overlay_png_url"]).convert("RGB")
    colours = overlay.getcolors(maxcolors=1 << 24) or []
    red = sum(n for n, (r, g, b) in colours if r > 200 and g < 80 and b < 100)
    assert red == pages[2]["changed_pixels"]
    assert _png(api, pages[2]["before_png_url"]).size == _png(api, pages[2]["after_png_url"]).size


def test_the_default_compares_published_with_the_draft(api, two_pages):
    body = api.get(f"{two_pages}/diff").json()
    assert (body["from_version"], body["to_version"]) == (1, 2)
    assert api.post(f"{two_pages}/publish").status_code == 200
    same = api.get(f"{two_pages}/diff").json()
    assert (same["from_version"], same["to_version"]) == (2, 2)
    assert [page["changed_pixels"] for page in same["pages"]] == [0, 0]
    assert same["source_diff"] == ""


def test_bad_refs_are_4xx(api, two_pages):
    assert api.get(f"{two_pages}/diff", {"from": "9"}).status_code == 404
    bad = api.get(f"{two_pages}/diff", {"from": "latest"})
    assert bad.status_code == 400
    assert "not a version" in bad.json()["error"]
    api.post(f"{two_pages}/publish")
    assert api.get(f"{two_pages}/diff", {"to": "draft"}).status_code == 404


def test_another_workspace_cannot_fetch_the_images(api, two_pages):
    url = api.get(f"{two_pages}/diff").json()["pages"][0]["overlay_png_url"]
    stranger = APIClient()
    stranger.credentials(HTTP_X_API_KEY=api_key_create(user=UserFactory(), name="x")[1])
    assert stranger.get(url).status_code == 404
    assert api.get(url.replace(".png", "x.png")).status_code == 404
