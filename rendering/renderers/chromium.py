"""Headless Chromium: a browser's layout and the only renderer that runs template
JavaScript, with the network closed. Every request goes through interception: the document
itself and the bundled fonts are served from here, an allowed remote asset is fetched by
the resource policy (never by the browser), and everything else (file://, loopback and
private addresses, redirects, WebSockets, fetch/XHR from script, navigation) is refused."""

from __future__ import annotations

import asyncio
import html as html_lib
import io
import re
import weakref
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from playwright.async_api import BrowserContext, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from pypdf import PdfReader
from xhtml2pdf.config.resources import ResourceAccessPolicy

from rendering.errors import LimitExceeded, RenderError
from rendering.fetch import ASSETS_DIR, ResourceRefused, resource_fetch
from rendering.limits import Limits
from rendering.options import PdfOptions
from rendering.renderers.base import LayoutBounds, LayoutJob, RenderedPdf, document_info_apply
from rendering.renderers.chromium_browser import (
    DEFAULT_EXECUTABLE,
    ChromiumService,
    chromium_service,
)
from rendering.renderers.chromium_confinement import Confinement
from rendering.renderers.document import RUNNING_STYLE, has_toc, headings, html_document

NAME = "chromium"
ORIGIN = "https://document.invalid"
_ASSETS = f"{ORIGIN}/_assets/"
_SCRIPT_REQUESTS = frozenset({"fetch", "xhr", "eventsource", "websocket", "manifest", "ping"})
# Every declared face loaded (a web font is otherwise fetched only once layout reaches a
# character it may have), then the text shaped again: Blink keeps the fallback font it
# chose while a face was still loading (Helvetica's tofu for Chinese), and a new font
# description (an unknown feature tag, which changes nothing drawn) makes it choose anew.
# Then two animation frames, so what a chart library draws on load is drawn.
_SETTLE_JS = """async () => {
  await Promise.all([...document.fonts].map(face => face.load().catch(() => null)));
  await document.fonts.ready;
  document.documentElement.style.setProperty("font-feature-settings", '"zzzz" 0');
  await new Promise(done =>
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0))));
}"""
_LOADED_JS = """() => document.readyState === "complete" ? null
  : new Promise(done => window.addEventListener("load", () => done(), {once: true}))"""
_FILL_TOC_JS = """(pages) => { for (const span of document.querySelectorAll('.rs-toc-page')) {
  const id = span.dataset.href.slice(1); if (id in pages) span.textContent = pages[id]; } }"""


@dataclass(frozen=True)
class ChromiumSettings:
    executable: Path = DEFAULT_EXECUTABLE
    max_jobs: int = 100  # jobs before the browser is recycled
    memory_mb: int = 256  # V8 heap of a page
    script_seconds: float = 5.0  # scripts of a page, from load to print
    # Environment, per-process memory ceiling, user and sandbox of the browser.
    confinement: Confinement = field(default_factory=Confinement)


def layout_settings(limits: Limits) -> dict[str, Any]:
    """What `layout` takes besides the bounds, from the limits (see renderers._Imported)."""
    return {
        "settings": ChromiumSettings(
            executable=Path(limits.chromium_path),
            max_jobs=limits.chromium_max_jobs,
            memory_mb=limits.template_max_memory_mb,
            script_seconds=limits.template_timeout_ms / 1000,
            confinement=Confinement(
                memory_mb=limits.chromium_process_memory_mb,
                run_as=limits.chromium_run_as,
                sandbox=limits.chromium_sandbox,
            ),
        )
    }


@dataclass
class _Job:
    document: str
    options: PdfOptions
    policy: ResourceAccessPolicy
    settings: ChromiumSettings
    deadline_seconds: float
    page_ranges: str
    toc: bool
    warnings: list[str] = field(default_factory=list)
    # The document is served once: a reload (or a loop of them) gets "no content".
    served: bool = False

    def refuse(self, message: str) -> None:
        if len(self.warnings) < 50 and message not in self.warnings:
            self.warnings.append(message)


def _shown(url: str) -> str:
    return url if len(url) <= 120 else f"{url[:117]}..."


async def _route(job: _Job, route: Route) -> None:
    request = route.request
    url = request.url
    if (
        url == f"{ORIGIN}/"
        and request.is_navigation_request()
        and request.frame.parent_frame is None
        and not job.served
    ):
        job.served = True
        await route.fulfill(body=job.document, content_type="text/html; charset=utf-8")
        return
    if url.startswith(_ASSETS) and request.method == "GET":
        path = (ASSETS_DIR / unquote(urlsplit(url).path[len("/_assets/") :])).resolve()
        if path.is_relative_to(ASSETS_DIR) and path.is_file():
            await route.fulfill(path=path)
            return
    if request.resource_type in _SCRIPT_REQUESTS:
        job.refuse(f"{_shown(url)} was refused: scripts may not make network requests")
    elif request.is_navigation_request():
        job.refuse(f"{_shown(url)} was refused: a document may not navigate or embed pages")
    elif url.startswith(ORIGIN):
        job.refuse(f"{_shown(url)} was refused: relative URLs point nowhere; use data: URIs")
    else:
        try:
            # The policy's fetch blocks (DNS, HTTP): off the browser's event loop.
            fetched = await asyncio.get_running_loop().run_in_executor(
                None, resource_fetch, url, job.policy
            )
        except ResourceRefused as exc:
            job.refuse(str(exc))
        else:
            await route.fulfill(body=fetched.body, content_type=fetched.mime_type)
            return
    if request.is_navigation_request():
        # "No content" keeps the document where it is; an abort would draw an error page.
        await route.fulfill(status=204)
        return
    await route.abort("blockedbyclient")


def _running_template(text: str) -> str:
    escaped = html_lib.escape(text)
    escaped = escaped.replace("{page}", '<span class="pageNumber"></span>')
    escaped = escaped.replace("{pages}", '<span class="totalPages"></span>')
    return f'<div style="{RUNNING_STYLE} width: 100%; text-align: center;">{escaped}</div>'


def _outline_pages(pdf: bytes, html: str) -> dict[str, int]:
    """Heading id -> page number, from the outline Chromium writes for the headings."""
    reader = PdfReader(io.BytesIO(pdf))
    found: list[tuple[str, int]] = []

    def walk(items: list[Any]) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
            elif (index := reader.get_destination_page_number(item)) is not None:
                found.append((str(item.title).strip(), index + 1))

    walk(reader.outline)
    pages: dict[str, int] = {}
    position = 0
    for _, anchor, text in headings(html):
        normalised = re.sub(r"\s+", " ", text)
        for index in range(position, len(found)):
            if re.sub(r"\s+", " ", found[index][0]) == normalised:
                pages[anchor] = found[index][1]
                position = index + 1
                break
    return pages


# The job each prepared context renders (None until one is given it): the routes are set
# up before the job is known, with the spare context (chromium_browser), and look it up here.
_context_jobs: weakref.WeakKeyDictionary[BrowserContext, _Job | None] = weakref.WeakKeyDictionary()


async def _context_route(context: BrowserContext, route: Route) -> None:
    job = _context_jobs.get(context)
    if job is None:  # nothing may load before the job's document
        await route.abort("blockedbyclient")
        return
    await _route(job, route)


async def _refuse_socket(context: BrowserContext, socket: WebSocketRoute) -> None:
    if (job := _context_jobs.get(context)) is not None:
        job.refuse(f"{_shown(socket.url)} was refused: a document may not open WebSockets")
    await socket.close()


async def context_setup(context: BrowserContext) -> None:
    """Every request of the context through `_route`, every WebSocket refused: set up
    once per context, before its job is known (ChromiumService's context_setup)."""
    _context_jobs[context] = None
    await context.route("**/*", lambda route: _context_route(context, route))
    await context.route_web_socket("**", lambda socket: _refuse_socket(context, socket))


async def _print(job: _Job, context: BrowserContext) -> bytes:
    loop = asyncio.get_running_loop()
    started = loop.time()

    def left() -> float:
        remaining = job.deadline_seconds - (loop.time() - started)
        if remaining <= 0:
            raise LimitExceeded(
                f"The layout took longer than {job.deadline_seconds:g} s (PDF_MAX_RENDER_SECONDS)."
            )
        return remaining

    if context not in _context_jobs:  # a service started without context_setup
        await context_setup(context)
    _context_jobs[context] = job
    page = context.pages[0] if context.pages else await context.new_page()
    crashed = asyncio.Event()
    page.on("crash", lambda _: crashed.set())
    script_seconds = job.settings.script_seconds
    budget = left()
    try:
        # Parsing runs the inline scripts; loading adds the resources (remote ones only
        # when PDF_REMOTE_ALLOWED_HOSTS names hosts, each bounded by the policy's fetch
        # time); then the scripts that wait for load run. The load is awaited in the page:
        # Playwright's own wait follows a navigation the document starts (and is refused).
        await page.goto(f"{ORIGIN}/", wait_until="commit", timeout=1000 * left())
        fetching = 10.0 if job.policy.allow_remote else 0.0
        await asyncio.wait_for(
            page.evaluate(_LOADED_JS), timeout=min(left(), script_seconds + fetching)
        )
        await asyncio.wait_for(page.evaluate(_SETTLE_JS), timeout=min(left(), script_seconds))
    except (PlaywrightTimeout, TimeoutError, PlaywrightError) as exc:
        if crashed.is_set():
            raise LimitExceeded(
                f"The page crashed, most likely by using more than {job.settings.memory_mb} MB "
                "(PDF_TEMPLATE_MAX_MEMORY_MB) in its scripts."
            ) from None
        if isinstance(exc, PlaywrightError) and not isinstance(exc, PlaywrightTimeout):
            if "context was destroyed" in str(exc) or "navigat" in str(exc).lower():
                # The document's own doing (a reload, a navigation): the same every time,
                # so permanent, never retried, dead-lettered and alerted on.
                raise RenderError(
                    "The document navigated away or reloaded itself while it was being "
                    "laid out; remove the script that does it."
                ) from None
            raise
        if budget <= script_seconds:
            raise LimitExceeded(
                f"The layout took longer than {job.deadline_seconds:g} s (PDF_MAX_RENDER_SECONDS)."
            ) from None
        raise LimitExceeded(
            f"The document's scripts did not finish within {script_seconds:g} s "
            "(PDF_TEMPLATE_TIMEOUT_MS); look for a loop that never ends."
        ) from None
    options = job.options

    def print_pdf(*, outline: bool) -> Awaitable[bytes]:
        return page.pdf(
            format=options.page_size,
            landscape=options.orientation == "landscape",
            print_background=True,
            prefer_css_page_size=False,
            display_header_footer=bool(options.header or options.footer),
            header_template=_running_template(options.header) if options.header else "<span/>",
            footer_template=_running_template(options.footer) if options.footer else "<span/>",
            page_ranges=job.page_ranges,
            outline=outline,
            tagged=outline,
        )

    try:
        if job.toc:
            first = await asyncio.wait_for(print_pdf(outline=True), timeout=left())
            pages = _outline_pages(first, job.document)
            await asyncio.wait_for(page.evaluate(_FILL_TOC_JS, pages), timeout=script_seconds)
        # From here on nothing of the template runs: a timer cannot stall the print.
        session = await context.new_cdp_session(page)
        await session.send("Emulation.setScriptExecutionDisabled", {"value": True})
        return await asyncio.wait_for(print_pdf(outline=False), timeout=left())
    except TimeoutError:
        raise LimitExceeded(
            f"The layout took longer than {job.deadline_seconds:g} s (PDF_MAX_RENDER_SECONDS)."
        ) from None


def layout(
    job: LayoutJob, *, bounds: LayoutBounds, settings: ChromiumSettings | None = None
) -> RenderedPdf:
    """Lay out rendered template HTML as PDF in this process's warm Chromium
    (`base.Renderer`, through the registry)."""
    settings = settings or ChromiumSettings()
    body_html, options = job.body_html, job.options
    document = html_document(body_html=body_html, css=job.css, options=options, font_url=None)
    bounds.size_check(document)
    max_pages, page_cap = bounds.max_pages, bounds.page_cap
    printing = _Job(
        document=document,
        options=options,
        policy=bounds.policy,
        settings=settings,
        deadline_seconds=bounds.max_render_seconds,
        # One page past the limit is enough to know it is exceeded.
        page_ranges="1" if page_cap == 1 else f"1-{page_cap or max_pages + 1}",
        toc=has_toc(body_html),
    )
    service = chromium_service(
        lambda: ChromiumService(
            executable=settings.executable,
            max_jobs=settings.max_jobs,
            memory_mb=settings.memory_mb,
            confinement=settings.confinement,
            context_setup=context_setup,
        )
    )
    content = service.run(
        lambda context: _print(printing, context), timeout=bounds.max_render_seconds + 15
    )
    page_count = len(PdfReader(io.BytesIO(content)).pages)
    if page_count > max_pages:
        raise LimitExceeded(
            f"The report has more than {max_pages} pages; the limit is {max_pages}."
        )
    for number in range(1, page_count + 1):
        if job.on_page is not None:
            job.on_page(number)
    return RenderedPdf(
        content=document_info_apply(content, options),
        page_count=page_count,
        warnings=printing.warnings,
    )
