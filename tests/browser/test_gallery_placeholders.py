"""The gallery shows a placeholder in every tile at once, while the thumbnails are still
on their way (a cold start renders them), and each picture covers it once loaded."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from playwright.sync_api import expect

from reports.samples import SAMPLES, template_sync_samples
from tests.browser.conftest import sign_in

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(180)]

LOADED = (
    "() => [...document.querySelectorAll('.gallery img')].map(i => i.complete && i.naturalWidth)"
)


def _ink(png: bytes) -> int:
    """Dark pixels in a screenshot: text drawn there (the placeholder's, or the page's)."""
    image = Image.open(io.BytesIO(png)).convert("L")
    return sum(1 for value in image.get_flattened_data() if value < 140)


def test_tiles_show_a_placeholder_until_their_picture_arrives(page, person, live_stack):
    template_sync_samples()
    sign_in(page)
    held: list = []
    released: list = []

    def hold(route) -> None:  # a cold start: the pictures are not answered yet
        route.continue_() if released else held.append(route)

    page.route("**/templates/*/thumbnail.png*", hold)
    page.goto("/reports/new/")
    tiles = page.locator(".gallery .tile")
    expect(tiles).to_have_count(len(SAMPLES))
    waits = page.locator(".thumb-wait")
    expect(waits).to_have_count(len(SAMPLES))
    for index in range(len(SAMPLES)):
        expect(waits.nth(index)).to_have_text("Preparing preview…")
        expect(waits.nth(index)).to_be_visible()
    assert page.evaluate(LOADED) == [False] * len(SAMPLES)  # nothing painted over them yet
    thumb = page.locator(".thumb").first
    waiting = thumb.screenshot()
    assert _ink(waiting) > 50  # the placeholder's words are what shows

    released.append(True)
    for route in held:
        route.continue_()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.gallery img')]"
        ".every(img => img.complete && img.naturalWidth > 0)",
        timeout=120_000,
    )
    assert page.evaluate(LOADED) == [360] * len(SAMPLES)
    assert thumb.screenshot() != waiting  # the picture now covers the placeholder
