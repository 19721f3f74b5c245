"""A document laid out as chunks and merged: one layout pass per page, whether the chunks
run one after another in this process or on several workers at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rendering.chunking import ChunkPlan, TocEntry
from rendering.merging import ChunkPdf, chunks_merge

# Lays out one chunk document; the entries, when given, fill its table of contents.
ChunkRender = Callable[[str, list[TocEntry] | None], ChunkPdf]
ManyRender = Callable[[Sequence[str]], list[ChunkPdf]]


def toc_entries_for(
    body: Sequence[ChunkPdf], *, own: list[TocEntry], toc_pages: int
) -> list[TocEntry]:
    """The whole document's entries: the table-of-contents chunk's own, then each body
    chunk's with its pages moved past the chunks before it."""
    entries = list(own)
    offset = toc_pages
    for chunk in body:
        entries += [
            (level, text, page + offset, key) for level, text, page, key in chunk.toc_entries
        ]
        offset += chunk.page_count
    return entries


def plan_render(
    plan: ChunkPlan,
    *,
    chunks: int,
    render: ChunkRender,
    render_many: ManyRender | None = None,
    stamp_render: Callable[[str], bytes],
) -> tuple[bytes, int, list[str]]:
    """Lay `plan` out in at most `chunks` chunks and merge them: (pdf, pages, warnings).
    `render_many` lays the body chunks out (in parallel where it can); the chunk with the
    table of contents is laid out after them, with their entries, in one pass."""
    runs = plan.ranges(chunks)
    toc_run = 0 if plan.toc_section is not None else None
    body_runs = [run for index, run in enumerate(runs) if index != toc_run]
    documents = [plan.chunk_html(first, last) for first, last in body_runs]
    many = render_many or (lambda docs: [render(doc, None) for doc in docs])
    body = many(documents) if documents else []
    parts = list(body)
    entries: list[TocEntry] = []
    if toc_run is not None:
        html = plan.chunk_html(*runs[toc_run])
        own: list[TocEntry] = []
        toc_pages = runs[toc_run][1] + 1  # a guess: one page per section before it
        for _ in range(3):
            entries = toc_entries_for(body, own=own, toc_pages=toc_pages)
            toc = render(html, entries)
            same_own = [e[:3] for e in toc.toc_entries] == [e[:3] for e in own]
            if toc.page_count == toc_pages and same_own:
                break
            # Its own headings, or a longer contents than guessed: once more, now known.
            own, toc_pages = toc.toc_entries, toc.page_count
        parts.insert(0, toc)
    pages = sum(part.page_count for part in parts)
    stamp = stamp_render(plan.stamp_html(pages)) if plan.numbered else None
    content = chunks_merge(parts, toc_chunk=toc_run, toc_entries=entries, stamp=stamp)
    warnings = [warning for part in parts for warning in part.warnings]
    return content, pages, list(dict.fromkeys(warnings))
