"""The default renderer: xhtml2pdf on ReportLab (its `<pdf:…>` tags and `@frame`s)."""

from __future__ import annotations

import io

from pypdf import PdfReader
from xhtml2pdf import pisa
from xhtml2pdf.config.resources import RenderLimitError

from rendering.errors import LimitExceeded, RenderError
from rendering.limits import DEFAULT_LIMITS, Limits
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
) -> RenderedPdf:
    """Lay out a full HTML document as PDF under the locked-down resource policy."""
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
            )
        except LimitExceeded as exc:
            # ReportLab re-raises errors from its page hooks with its own notes prepended.
            raise LimitExceeded(exc.args[0].split("args=() ")[-1].strip()) from None
        except RenderLimitError as exc:
            raise LimitExceeded(f"The document is too large to lay out: {exc}") from None
        except RecursionError:
            raise LimitExceeded("The document nests elements too deeply to lay out.") from None
    if status.err:
        raise RenderError("The HTML could not be laid out as a PDF (xhtml2pdf reported errors).")
    content = out.getvalue()
    page_count = len(PdfReader(io.BytesIO(content)).pages)
    if page_count > limits.max_pages:
        raise LimitExceeded(f"The report has {page_count} pages; the limit is {limits.max_pages}.")
    return RenderedPdf(content=content, page_count=page_count, warnings=list(warnings))


class Xhtml2PdfRenderer:
    name = "xhtml2pdf"
    render = staticmethod(html_to_pdf)
