"""Per-thread hooks into xhtml2pdf's layout: a page callback (progress, an early page
limit) and a page cap that ends the layout once enough pages exist (previews).

`install()` wraps them into xhtml2pdf's document class; the renderer calls it at its
first use, so importing this module changes nothing."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from xhtml2pdf.xhtml2pdf_reportlab import PmlBaseDoc

PageHook = Callable[[int], None]
_local = threading.local()
_install_lock = threading.Lock()
_original_begin = PmlBaseDoc.handle_pageBegin
_original_flowable = PmlBaseDoc.handle_flowable


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


def install() -> None:
    """Wrap the hooks into xhtml2pdf's document class (idempotent). xhtml2pdf builds that
    class inside pisaDocument with no way to pass a callback, so they are wrapped in once;
    with no hook or cap set for a thread they change nothing."""
    with _install_lock:
        if PmlBaseDoc.handle_pageBegin is not _handle_page_begin:
            PmlBaseDoc.handle_pageBegin = _handle_page_begin
            PmlBaseDoc.handle_flowable = _handle_flowable


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
