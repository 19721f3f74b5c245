"""The default renderer: xhtml2pdf on ReportLab (its `<pdf:…>` tags and `@frame`s)."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping

from pypdf import PdfReader
from reportlab.platypus.doctemplate import LayoutError
from xhtml2pdf import pisa
from xhtml2pdf.config.resources import RenderLimitError

from rendering.charts import chart_links
from rendering.errors import LayoutFailed, LimitExceeded, RenderError
from rendering.fetch import public_message
from rendering.layout import build_document
from rendering.limits import DEFAULT_LIMITS, Limits
from rendering.options import PdfOptions
from rendering.renderers import xhtml2pdf_hooks
from rendering.renderers.base import PageCallback, RenderedPdf
from rendering.resources import collect_warnings, resource_policy


def _page_guard(limit: int, on_page: PageCallback | None) -> PageCallback:
    def guard(page: int) -> None:
        if page > limit:
            raise LimitExceeded(f"The report has more than {limit} pages; the limit is {limit}.")
        if on_page is not None:
            on_page(page)

    return guard


def html_to_pdf(
    html: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    on_page: PageCallback | None = None,
    meta: dict[str, str] | None = None,
    max_pages: int | None = None,
    images: Mapping[str, str] | None = None,
) -> RenderedPdf:
    """Lay out a full HTML document as PDF under the locked-down resource policy.
    `images` maps the document's `chart-image:N` links to their data URIs."""
    if len(html.encode("utf-8")) > limits.max_html_bytes:
        raise LimitExceeded(
            f"The rendered HTML is larger than the {limits.max_html_bytes} bytes allowed."
        )
    xhtml2pdf_hooks.install()
    out = io.BytesIO()
    with (
        collect_warnings() as warnings,
        xhtml2pdf_hooks.on_page(_page_guard(limits.max_pages, on_page)),
        xhtml2pdf_hooks.page_cap(max_pages),
    ):
        try:
            status = pisa.pisaDocument(
                html,
                dest=out,
                encoding="utf-8",
                resource_policy=resource_policy(limits),
                context_meta={k: v for k, v in (meta or {}).items() if v},
                # The data URI of a shared chart for each of its uses: the image data is
                # decoded per use but stands once in the HTML and, by its digest, once in
                # the PDF. The policy still checks what the callback returns.
                link_callback=lambda uri, _base: (images or {}).get(uri),
            )
        except LimitExceeded as exc:
            # ReportLab re-raises errors from its page hooks with its own notes prepended.
            raise LimitExceeded(exc.args[0].split("args=() ")[-1].strip()) from None
        except RenderLimitError as exc:
            raise LimitExceeded(f"The document is too large to lay out: {exc}") from None
        except RecursionError:
            raise LimitExceeded("The document nests elements too deeply to lay out.") from None
        except LayoutError as exc:
            raise _layout_failed(exc) from None
    if status.err:
        raise RenderError("The HTML could not be laid out as a PDF (xhtml2pdf reported errors).")
    content = out.getvalue()
    page_count = len(PdfReader(io.BytesIO(content)).pages)
    if page_count > limits.max_pages:
        raise LimitExceeded(f"The report has {page_count} pages; the limit is {limits.max_pages}.")
    # Characters no font has are named once for every renderer (rendering.glyphs), not
    # one message a character with a fragment of the template.
    kept = [_explained(w) for w in warnings if not w.startswith(_NO_GLYPH)]
    return RenderedPdf(content=content, page_count=page_count, warnings=kept)


_NO_GLYPH = "No font this document has can draw"
_FLOWABLE = re.compile(r"Flowable <(\w+)")
_FLOWABLE_NAMES = {
    "Table": "a table row",
    "PmlTable": "a table row",
    "PmlImage": "an image",
    "PmlParagraph": "a paragraph",
    "Paragraph": "a paragraph",
    "PmlKeepInFrame": "a block",
}


def _layout_failed(exc: LayoutError) -> LayoutFailed:
    """ReportLab's LayoutError as a sentence: what did not fit, and what to do about it."""
    found = _FLOWABLE.search(str(exc))
    thing = _FLOWABLE_NAMES.get(found.group(1), "a block") if found else "a block"
    return LayoutFailed(
        f"xhtml2pdf could not place {thing} on any page: it is taller (or wider) than the "
        "page's frame and cannot be split. Let it break across pages (avoid fixed heights "
        "and tables nested in tables), or use the weasyprint or chromium renderer, which "
        "split such content across pages."
    )


def _explained(warning: str) -> str:
    """xhtml2pdf's warning, without server paths, saying which renderer would do better."""
    warning = public_message(warning)
    if "does not implement" in warning or "Unsupported pseudo page" in warning:
        return f"{warning} The weasyprint and chromium renderers support these."
    return warning


class Xhtml2PdfRenderer:
    name = "xhtml2pdf"

    def render(
        self,
        *,
        body_html: str,
        css: str,
        options: PdfOptions,
        limits: Limits,
        on_page: PageCallback | None = None,
        max_pages: int | None = None,
    ) -> RenderedPdf:
        meta = {"title": options.title, "author": options.author, "subject": options.subject}
        # xhtml2pdf paints no backgrounds on images: shared charts become links instead.
        body_html, images = chart_links(body_html)
        return html_to_pdf(
            build_document(body_html=body_html, css=css, options=options),
            images=images,
            limits=limits,
            on_page=on_page,
            meta=meta,
            max_pages=max_pages,
        )
