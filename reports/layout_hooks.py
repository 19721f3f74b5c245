"""Per-thread hooks into xhtml2pdf's layout: a page callback (progress, an early page
limit), a page cap that ends the layout once enough pages exist (previews), and the
table-of-contents entries a chunk reports or is given (chunked rendering)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from xhtml2pdf.xhtml2pdf_reportlab import PmlBaseDoc, PmlTableOfContents

PageHook = Callable[[int], None]
# (outline level, title, page, destination key), as xhtml2pdf notifies them.
TocEntry = tuple[int, str, int, str | None]
_local = threading.local()
_original_begin = PmlBaseDoc.handle_pageBegin
_original_flowable = PmlBaseDoc.handle_flowable
_original_notify = PmlBaseDoc.notify
_original_toc_before = PmlTableOfContents.beforeBuild
_original_toc_satisfied = PmlTableOfContents.isSatisfied
_original_toc_draw = PmlTableOfContents.drawOn


def _handle_page_begin(self: Any) -> None:
    _original_begin(self)
    hook = getattr(_local, "hook", None)
    if hook is not None:
        # Called as each page starts, so a 3,000-page document stops at the limit
        # instead of being laid out whole and counted afterwards.
        hook(self.page)


def _handle_flowable(self: Any, flowables: list[Any]) -> None:
    cap = getattr(_local, "cap", None)
    if cap is not None and self.page > cap:
        # Emptying the story ends ReportLab's build loop normally, with the pages so far.
        del flowables[:]
        return
    _original_flowable(self, flowables)


def _notify(self: Any, kind: str, stuff: Any) -> None:
    entries = getattr(_local, "toc_entries", None)
    if entries is not None and kind == "TOCEntry":
        entries.append(tuple(stuff))
    _original_notify(self, kind, stuff)


def _toc_before_build(self: Any) -> None:
    _original_toc_before(self)
    seeded = getattr(_local, "toc_seed", None)
    if seeded is not None:
        # The entries of the whole document, known before this chunk is laid out, so
        # one pass draws them: no second pass to learn them.
        self._lastEntries = list(seeded)


def _toc_satisfied(self: Any) -> bool:
    if getattr(_local, "toc_seed", None) is not None:
        return True
    return _original_toc_satisfied(self)


# The top coordinate of a placeholder destination: no page has it, so a merge can tell
# the links of a seeded table of contents from any other link.
TOC_LINK_MARKER = -7777


def _toc_draw_on(self: Any, canvas: Any, x: float, y: float, _sW: float = 0) -> None:
    _original_toc_draw(self, canvas, x, y, _sW)
    seeded = getattr(_local, "toc_seed", None)
    if seeded is not None:
        # Entries link to headings in other chunks, and ReportLab refuses to save a
        # link to a destination it has not seen: each gets a placeholder here whose
        # left coordinate says which entry it is, pointed at its heading at merge.
        for index, (_, _, _, key) in enumerate(seeded):
            known = canvas._destinations.get(key)
            if key and (known is None or known.fmt is None):
                canvas.bookmarkPage(key, fit="XYZ", left=-1000 - index, top=TOC_LINK_MARKER)


# xhtml2pdf builds its document class inside pisaDocument with no way to pass a
# callback, so the hooks are wrapped in once; with none set they change nothing.
PmlBaseDoc.handle_pageBegin = _handle_page_begin
PmlBaseDoc.handle_flowable = _handle_flowable
PmlBaseDoc.notify = _notify
PmlTableOfContents.beforeBuild = _toc_before_build
PmlTableOfContents.isSatisfied = _toc_satisfied
PmlTableOfContents.drawOn = _toc_draw_on


@contextmanager
def on_page(hook: PageHook) -> Iterator[None]:
    """Call `hook(page_number)` as each page of this thread's layout begins."""
    previous = getattr(_local, "hook", None)
    _local.hook = hook
    try:
        yield
    finally:
        _local.hook = previous


@contextmanager
def page_cap(pages: int | None) -> Iterator[None]:
    """Stop laying out this thread's document once it has more than `pages` pages."""
    previous = getattr(_local, "cap", None)
    _local.cap = pages
    try:
        yield
    finally:
        _local.cap = previous


@contextmanager
def toc_collect() -> Iterator[list[TocEntry]]:
    """Collect the table-of-contents entries this thread's layout notifies."""
    previous = getattr(_local, "toc_entries", None)
    _local.toc_entries = entries = []
    try:
        yield entries
    finally:
        _local.toc_entries = previous


@contextmanager
def toc_seed(entries: list[TocEntry] | None) -> Iterator[None]:
    """Lay this thread's table of contents out with `entries`, in one pass."""
    previous = getattr(_local, "toc_seed", None)
    _local.toc_seed = entries
    try:
        yield
    finally:
        _local.toc_seed = previous
