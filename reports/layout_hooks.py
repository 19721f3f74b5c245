"""A per-thread page hook into xhtml2pdf's layout, for progress and an early page limit."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from xhtml2pdf.xhtml2pdf_reportlab import PmlBaseDoc

PageHook = Callable[[int], None]
_local = threading.local()
_original_begin = PmlBaseDoc.handle_pageBegin


def _handle_page_begin(self: Any) -> None:
    _original_begin(self)
    hook = getattr(_local, "hook", None)
    if hook is not None:
        # Called as each page starts, so a 3,000-page document stops at the limit
        # instead of being laid out whole and counted afterwards.
        hook(self.page)


# xhtml2pdf builds its document class inside pisaDocument with no way to pass a
# callback, so the hook is wrapped in once; with no hook set it changes nothing.
PmlBaseDoc.handle_pageBegin = _handle_page_begin


@contextmanager
def on_page(hook: PageHook) -> Iterator[None]:
    """Call `hook(page_number)` as each page of this thread's layout begins."""
    previous = getattr(_local, "hook", None)
    _local.hook = hook
    try:
        yield
    finally:
        _local.hook = previous
