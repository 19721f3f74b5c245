"""Fixtures for renderer tests: each renderer by name, and PDFs read back as word boxes."""

from __future__ import annotations

import io
import os
import time
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader

from rendering.isolated import exiting_count, reap_exited
from rendering.options import parse_options
from rendering.renderers import RENDERER_NAMES
from rendering.renderers.base import RenderedPdf
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))


@pytest.fixture
def no_children_exiting() -> None:
    """Earlier renders in this process (other tests') may have left children exiting, which
    rendering.isolated reaps later: they exit at once, so wait for them, and a test that
    counts the children it made counts only its own."""
    ends = time.monotonic() + 10
    while (reap_exited(), exiting_count())[1]:
        assert time.monotonic() < ends, "earlier renders' children still exiting after 10 s"
        time.sleep(0.01)


@pytest.fixture(params=RENDERER_NAMES)
def renderer(request: pytest.FixtureRequest, settings) -> str:
    if request.param == "chromium":
        if not CHROMIUM.exists():
            pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium")
        settings.CHROMIUM_PATH = str(CHROMIUM)
    return request.param


@pytest.fixture(params=["weasyprint", "chromium"])
def modern_renderer(request: pytest.FixtureRequest, settings) -> str:
    """The two renderers that lay out modern CSS."""
    if request.param == "chromium" and not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium")
    settings.CHROMIUM_PATH = str(CHROMIUM)
    return request.param


def report(
    *,
    engine: str,
    source: str,
    css: str,
    data: dict,
    options,
    renderer: str = "xhtml2pdf",
    helpers: str = "",
    max_render_seconds: float | None = None,
    **kwargs,
) -> RenderedPdf:
    """report_render with the configured limits (read now, so a test's settings count)."""
    return report_render(
        source=TemplateSource(
            engine=engine, html=source, css=css, renderer=renderer, helpers=helpers
        ),
        data=data,
        options=options,
        limits=limits_from_settings(max_render_seconds=max_render_seconds),
        **kwargs,
    )


def render(
    renderer: str,
    html: str,
    *,
    css: str = "",
    data: dict | None = None,
    engine: str = "handlebars",
    **options,
) -> RenderedPdf:
    return report(
        engine=engine,
        source=html,
        css=css,
        data=data or {},
        options=parse_options(options),
        renderer=renderer,
    )


def page_texts(content: bytes) -> list[str]:
    return [page.extract_text() or "" for page in PdfReader(io.BytesIO(content)).pages]


@dataclass(frozen=True)
class Box:
    text: str
    left: float
    bottom: float
    right: float
    top: float

    def overlaps(self, other: Box, tolerance: float = 0.5) -> bool:
        return (
            min(self.right, other.right) - max(self.left, other.left) > tolerance
            and min(self.top, other.top) - max(self.bottom, other.bottom) > tolerance
        )


def word_boxes(content: bytes, page: int = 0) -> list[Box]:
    """Each word printed on a page with the box its glyphs cover, read back with pdfium."""
    document = pdfium.PdfDocument(content)
    try:
        text_page = document[page].get_textpage()
        boxes: list[Box] = []
        word, left, bottom, right, top = "", 0.0, 0.0, 0.0, 0.0
        for index in range(text_page.count_chars()):
            char = text_page.get_text_range(index, 1)
            box = text_page.get_charbox(index)
            if not char.strip() or box[2] - box[0] <= 0:
                if word:
                    boxes.append(Box(word, left, bottom, right, top))
                word = ""
                continue
            if not word:
                left, bottom, right, top = box
            else:
                # A jump to another line, or a wide gap with no space character, is
                # a new word (pdfium orders characters as they are drawn).
                if box[0] - right > 8 or box[0] < left - 1 or abs(box[1] - bottom) > 3:
                    boxes.append(Box(word, left, bottom, right, top))
                    word, left, bottom, right, top = "", *box
                left, bottom = min(left, box[0]), min(bottom, box[1])
                right, top = max(right, box[2]), max(top, box[3])
            word += char
        if word:
            boxes.append(Box(word, left, bottom, right, top))
        return boxes
    finally:
        document.close()


def overlapping(boxes: list[Box]) -> list[tuple[str, str]]:
    return [(a.text, b.text) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if a.overlaps(b)]


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text("SECRET-CONTENT-42")
    return path
