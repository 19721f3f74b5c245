"""A large report laid out by several worker processes at once (a chord of chunk renders
and a merge), read back: pages, "Page X of Y", contents and bookmarks across chunks."""

from __future__ import annotations

import io
import re

import pytest
from django.conf import settings
from pypdf import PdfReader

from tests.e2e.conftest import wait_for_status

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

SECTIONS = 13
BODY = """{{pageBreak}}<div>Contents</div>{{toc}}
{{#each sections}}{{pageBreak}}<h1>{{title}}</h1>
<p>{{#each words}}<b>{{this}}</b> {{/each}}</p>{{/each}}
</body></html>"""
# "Page X of Y" in each renderer's own way: an xhtml2pdf frame, a WeasyPrint margin box.
REPORTS = {
    "xhtml2pdf": """<html><head><style>
@page { margin: 2cm 2cm 2.5cm 2cm;
  @frame footer { -pdf-frame-content: footer; bottom: 1cm; margin-left: 2cm;
                  margin-right: 2cm; height: 1cm; } }
</style></head><body>
<div id="footer">Chunked &middot; Page <pdf:pagenumber /> of <pdf:pagecount /></div>
<h2>Cover</h2>
"""
    + BODY,
    "weasyprint": """<html><head><style>
@page { margin: 2cm; @bottom-center { content: "Chunked · Page " counter(page) " of "
  counter(pages); } }
</style></head><body>
<h2>Cover</h2>
"""
    + BODY,
}


def _data() -> dict:
    # Enough tags to pass PDF_CHUNK_MIN_TAGS, in inline runs that lay out quickly.
    words = max(20, settings.PDF_CHUNK_MIN_TAGS // (2 * SECTIONS) + 10)
    return {
        "sections": [
            {"title": f"Section {n}", "words": [f"w{n}-{i}" for i in range(words)]}
            for n in range(1, SECTIONS + 1)
        ]
    }


@pytest.mark.parametrize("renderer", list(REPORTS))
def test_large_report_is_laid_out_in_chunks_and_merged(http, live_stack, renderer):
    assert settings.PDF_CHUNKS >= 2
    submitted = http.post(
        "/api/v1/generate-pdf-async",
        json={
            "html_template": REPORTS[renderer],
            "data": _data(),
            "engine": "handlebars",
            "renderer": renderer,
        },
    )
    assert submitted.status_code == 202, submitted.text
    job = wait_for_status(
        http, submitted.json()["status_url"], until={"completed", "failed"}, timeout=240
    )
    assert job["status"] == "completed", job
    pdf = http.get(job["pdf_url"]).content
    reader = PdfReader(io.BytesIO(pdf))
    pages = len(reader.pages)
    assert job["page_count"] == pages >= SECTIONS + 2
    for number, page in enumerate(reader.pages, start=1):
        assert f"Page {number} of {pages}" in page.extract_text()
    outline = [
        (item.title, reader.get_destination_page_number(item))
        for item in reader.outline
        if not isinstance(item, list)
    ]
    assert [title for title, _ in outline] == ["Cover"] + [
        f"Section {n}" for n in range(1, SECTIONS + 1)
    ]
    assert [page for _, page in outline] == sorted(page for _, page in outline)
    contents = reader.pages[1].extract_text()
    assert f"Section {SECTIONS}" in contents
    # Each entry's page number is the page its heading is on in the merged document.
    flat = " ".join(contents.split())
    for title, page in outline[1:]:
        # xhtml2pdf's text comes out number first, WeasyPrint's title first.
        number = page + 1
        assert re.search(rf"\b{number} {title}\b|\b{title} {number}\b", flat), (title, flat)
    log = (live_stack.logs / "worker.log").read_text()
    assert log.count("Task jobs.render_chunk[") >= 2 * 2  # received and succeeded, each
    assert "Task jobs.merge_chunks[" in log
