"""What every renderer implements: a full HTML document in, a PDF out, under the limits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from rendering.limits import Limits

PageCallback = Callable[[int], None]


@dataclass(frozen=True)
class RenderedPdf:
    content: bytes
    page_count: int
    warnings: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.content)


class Renderer(Protocol):
    """Lays out one HTML document as a PDF.

    `on_page(n)` is called as page n starts (and may raise to stop the layout); `meta`
    carries title/author/subject; `max_pages` stops the layout once that many pages exist
    (a preview needs only the first). Raises a RenderError subclass for any problem a
    person can fix, LimitExceeded for a limit."""

    name: str

    def render(
        self,
        html: str,
        *,
        limits: Limits,
        on_page: PageCallback | None = None,
        meta: dict[str, str] | None = None,
        max_pages: int | None = None,
    ) -> RenderedPdf: ...
