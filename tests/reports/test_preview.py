"""PDF pages rasterised to PNG for thumbnails and previews."""

from __future__ import annotations

import base64
import dataclasses
import io
import json

import pytest
import redis
from django.conf import settings as django_settings
from PIL import Image

from rendering.errors import RenderError
from rendering.options import parse_options
from rendering.raster import pdf_page_png
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings


def test_first_page_becomes_a_png_of_the_requested_width():
    pdf = report_render(
        source=TemplateSource(engine="raw", html='<h1 style="color:#ff0000">RED</h1>', css=""),
        data={},
        options=parse_options({}),
        limits=limits_from_settings(),
    ).content
    image = Image.open(io.BytesIO(pdf_page_png(pdf, width=300)))
    assert image.format == "PNG"
    assert image.width == 300
    assert image.height == round(300 * 297 / 210) or abs(image.height - 424) <= 1
    colours = set(image.convert("RGB").get_flattened_data())
    assert any(r > 200 and g < 80 and b < 80 for r, g, b in colours)  # the heading's red


def test_missing_page_is_a_render_error():
    pdf = report_render(
        source=TemplateSource(engine="raw", html="<p>x</p>", css=""),
        data={},
        options=parse_options({}),
        limits=limits_from_settings(),
    ).content
    with pytest.raises(RenderError, match="no page 3"):
        pdf_page_png(pdf, page=2)


def test_template_preview_lays_out_only_the_first_page(settings, monkeypatch):
    import time

    from rendering.renderers.xhtml2pdf import html_to_pdf
    from reports import preview

    laid_out = []

    def report_render(**kwargs):
        rendered = real_render(**kwargs)
        laid_out.append(rendered.page_count)
        return rendered

    real_render = preview.report_render
    monkeypatch.setattr(preview, "report_render", report_render)
    long_doc = "<p>page</p><pdf:nextpage />" * 400
    started = time.thread_time()  # the layout's own CPU, not the machine's load
    png = preview.template_preview_png(
        engine="raw", source=long_doc, css="", data={}, schema={}, options=parse_options({})
    )
    assert png.startswith(b"\x89PNG")
    assert time.thread_time() - started < 3
    assert len(laid_out) == 1
    assert laid_out[0] <= 2  # pages laid out, of 400
    settings.PDF_MAX_PAGES = 10  # the cap stops layout before the page limit is reached
    closed = long_doc.replace("<pdf:nextpage />", "<pdf:nextpage></pdf:nextpage>")
    assert (
        html_to_pdf(
            f"<html><body>{closed}</body></html>", max_pages=1, limits=limits_from_settings()
        ).page_count
        <= 2
    )


def test_preview_refuses_data_nested_deeper_than_a_submit_may(settings):
    from rendering.errors import LimitExceeded
    from reports.preview import template_preview_png

    settings.PDF_MAX_NESTING_DEPTH = 5
    deep: dict = {}
    node = deep
    for _ in range(10):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(LimitExceeded, match="nests deeper than 5 levels"):
        template_preview_png(
            engine="raw",
            source="<p>x</p>",
            css="",
            data=deep,
            schema={},
            options=parse_options({}),
        )


def test_a_giant_page_is_rasterised_within_the_pixel_cap(settings):
    import time

    from reportlab.lib.units import mm
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    sheet = canvas.Canvas(out, pagesize=(10 * mm, 12500 * mm))  # 600 px wide: 450 Mpx
    sheet.drawString(2, 2, "x")
    sheet.save()
    started = time.monotonic()
    image = Image.open(io.BytesIO(pdf_page_png(out.getvalue(), width=600)))
    assert image.width * image.height <= settings.PDF_PREVIEW_MAX_PIXELS
    assert image.height > 50 * image.width  # the shape is kept, only the scale shrinks
    assert time.monotonic() - started < 5


def test_the_preview_worker_renders_on_a_data_stack_chunk_of_its_own(monkeypatch):
    from reports import preview_queue

    ran_on_a_chunk: list[bool] = []

    def on_a_chunk(work):
        ran_on_a_chunk.append(True)
        return work()

    monkeypatch.setattr(preview_queue, "on_a_chunk_of_its_own", on_a_chunk)
    key = "test:preview-reply"
    work = preview_queue.PreviewWork(
        engine="raw", source="<h1>Hi</h1>", css="", data={}, options={}, width=120
    )
    preview_queue.preview_render_and_reply(reply_key=key, work=dataclasses.asdict(work))
    connection = redis.Redis.from_url(django_settings.REDIS_URL)
    reply = json.loads(connection.lpop(key))
    connection.delete(key)
    assert ran_on_a_chunk == [True]
    assert reply["ok"], reply
    assert Image.open(io.BytesIO(base64.b64decode(reply["pngs"][0]))).width == 120
