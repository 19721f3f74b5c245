"""Per-thread hooks into xhtml2pdf's layout: a page callback (progress, an early page
limit), a page cap that ends the layout once enough pages exist (previews), and the
table-of-contents entries a chunk reports or is given (chunked layout); and, for every
thread, one pass instead of two for a one-page document whose only second-pass need is
its page count.

`install()` wraps them into xhtml2pdf's document class; the renderer calls it at its
first use, so importing this module changes nothing."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from xhtml2pdf.xhtml2pdf_reportlab import PmlBaseDoc, PmlPageCount, PmlTableOfContents

from rendering.chunking import TOC_LINK_MARKER, TocEntry

PageHook = Callable[[int], None]
_local = threading.local()
_install_lock = threading.Lock()
_original_begin = PmlBaseDoc.handle_pageBegin
_original_flowable = PmlBaseDoc.handle_flowable
_original_notify = PmlBaseDoc.notify
_original_all_satisfied = PmlBaseDoc._allSatisfied
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


def _all_satisfied(self: Any) -> bool:
    # <pdf:pagecount> makes xhtml2pdf lay the whole document out twice: the first pass
    # learns the count, the second draws it. While the first pass lays out page N the count
    # it draws is N, so when that pass ended on page 1 every count it drew was the
    # document's, and the second pass would lay out the same page again (the same bytes:
    # tests/rendering/test_one_pass.py). A quarter of a one-page invoice's render. Any other
    # indexing flowable (a table of contents) still gets its passes.
    if self.page == 1 and all(isinstance(f, PmlPageCount) for f in self._indexingFlowables):
        return True
    return bool(_original_all_satisfied(self))


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
    return bool(_original_toc_satisfied(self))


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


def install() -> None:
    """Wrap the hooks into xhtml2pdf's document class (idempotent). xhtml2pdf builds that
    class inside pisaDocument with no way to pass a callback, so they are wrapped in once;
    with no hook or cap set for a thread they change nothing."""
    with _install_lock:
        if PmlBaseDoc.handle_pageBegin is not _handle_page_begin:
            PmlBaseDoc.handle_pageBegin = _handle_page_begin
            PmlBaseDoc.handle_flowable = _handle_flowable
            PmlBaseDoc.notify = _notify
            PmlBaseDoc._allSatisfied = _all_satisfied
            PmlTableOfContents.beforeBuild = _toc_before_build
            PmlTableOfContents.isSatisfied = _toc_satisfied
            PmlTableOfContents.drawOn = _toc_draw_on


@contextmanager
def _thread_setting(name: str, value: Any) -> Iterator[None]:
    previous = getattr(_local, name, None)
    setattr(_local, name, value)
    try:
        yield
    finally:
        setattr(_local, name, previous)


def on_page(hook: PageHook) -> AbstractContextManager[None]:
    """Call `hook(page_number)` as each page of this thread's layout begins."""
    return _thread_setting("hook", hook)


def page_cap(pages: int | None) -> AbstractContextManager[None]:
    """Stop laying out this thread's document once it has more than `pages` pages."""
    return _thread_setting("cap", pages)


def toc_seed(entries: list[TocEntry] | None) -> AbstractContextManager[None]:
    """Lay this thread's table of contents out with `entries`, in one pass."""
    return _thread_setting("toc_seed", entries)


@contextmanager
def toc_collect() -> Iterator[list[TocEntry]]:
    """Collect the table-of-contents entries this thread's layout notifies."""
    entries: list[TocEntry] = []
    with _thread_setting("toc_entries", entries):
        yield entries
