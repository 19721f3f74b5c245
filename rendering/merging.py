"""Chunk PDFs merged into one document: pages in order, bookmarks, table-of-contents links
pointed at their headings, and the numbered static frames stamped on every page."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rendering.chunking import TOC_LINK_MARKER, TocEntry

if TYPE_CHECKING:
    from pypdf import PageObject, PdfReader, PdfWriter
    from pypdf.generic import ArrayObject

# pypdf is imported by the functions that merge: the renderers' registry imports this
# module (ChunkPdf) in every process, and pypdf costs each start ~0.1 s. A worker imports
# it before its pool forks (rendering.preload).


@dataclass(frozen=True)
class ChunkPdf:
    """One chunk's layout: its PDF and the table-of-contents entries it notified (pages
    counted from the chunk's first page)."""

    content: bytes
    page_count: int
    toc_entries: list[TocEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Anchors laid out in the chunk, id -> [page index, x, y] (PDF points from the page's
    # bottom left), and its links to anchors it does not hold: [page index, id, x1, y1,
    # x2, y2]. The merge points those at the anchors of the other chunks (WeasyPrint).
    anchors: dict[str, list[float]] = field(default_factory=dict)
    links: list[list[Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Everything but the PDF, as JSON: what a chunk task hands to the merge."""
        return {
            "page_count": self.page_count,
            "toc_entries": self.toc_entries,
            "warnings": self.warnings,
            "anchors": self.anchors,
            "links": self.links,
        }

    @classmethod
    def from_summary(cls, content: bytes, summary: dict[str, Any]) -> ChunkPdf:
        return cls(
            content=content,
            page_count=int(summary["page_count"]),
            toc_entries=[tuple(entry) for entry in summary.get("toc_entries", [])],
            warnings=list(summary.get("warnings", [])),
            anchors=dict(summary.get("anchors", {})),
            links=list(summary.get("links", [])),
        )


def _outline_tops(reader: PdfReader) -> list[tuple[int, float | None]]:
    """(page index, top) of each bookmark, in document order."""
    from pypdf.generic import NullObject

    found: list[tuple[int, float | None]] = []

    def walk(items: list[Any]) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
                continue
            page = reader.get_destination_page_number(item)
            if page is None:
                continue
            top = item.get("/Top")
            found.append((page, None if top is None or isinstance(top, NullObject) else float(top)))

    walk(reader.outline)
    return found


def _fix_toc_links(writer: PdfWriter, pages: range, targets: list[ArrayObject | None]) -> None:
    """Point the seeded table of contents' placeholder links at their headings."""
    from pypdf.generic import ArrayObject, NameObject

    for index in pages:
        for annot in writer.pages[index].get("/Annots") or []:
            annot = annot.get_object()
            dest = annot.get("/Dest")
            if dest is None and "/A" in annot:
                dest = annot["/A"].get("/D")
            if not isinstance(dest, ArrayObject) or len(dest) < 4:
                continue
            if dest[1] != "/XYZ" or dest[3] != TOC_LINK_MARKER:
                continue
            entry = int(-float(dest[2]) - 1000)
            target = targets[entry] if 0 <= entry < len(targets) else None
            if target is not None:
                key = "/Dest" if "/Dest" in annot else "/A"
                if key == "/Dest":
                    annot[NameObject("/Dest")] = target
                else:
                    annot["/A"][NameObject("/D")] = target


def _stream(writer: PdfWriter, data: bytes, **entries: object) -> object:
    from pypdf.generic import DecodedStreamObject, NameObject

    stream = DecodedStreamObject()
    stream.set_data(data)
    for key, value in entries.items():
        stream[NameObject(f"/{key}")] = value
    return writer._add_object(stream.flate_encode())


def page_overlay(writer: PdfWriter, page: PageObject, over: PageObject) -> None:
    """Draw `over` on top of `page` as a form XObject: the page's own content stream is
    left as it is (pypdf's merge_page parses and rewrites it uncompressed)."""
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject

    contents = over.get_contents()  # a ContentStream is a dict: test for None, not truth
    form = _stream(
        writer,
        b"" if contents is None else contents.get_data(),
        Type=NameObject("/XObject"),
        Subtype=NameObject("/Form"),
        BBox=ArrayObject(over.mediabox),
        Resources=over["/Resources"].clone(writer),
    )
    # Copies: pages may share one resources dictionary (WeasyPrint's do), and each page
    # gets a stamp of its own.
    shared = page.get("/Resources")
    resources = DictionaryObject(shared.get_object()) if shared is not None else DictionaryObject()
    shared_xobjects = resources.get("/XObject")
    xobjects = (
        DictionaryObject(shared_xobjects.get_object())
        if shared_xobjects is not None
        else DictionaryObject()
    )
    xobjects[NameObject("/RsStamp")] = form
    resources[NameObject("/XObject")] = xobjects
    page[NameObject("/Resources")] = resources
    own = page.get("/Contents")
    existing = [] if own is None else own.get_object()
    if not isinstance(existing, ArrayObject):
        existing = ArrayObject([own])
    page[NameObject("/Contents")] = ArrayObject(
        [_stream(writer, b"q\n"), *existing, _stream(writer, b"\nQ q /RsStamp Do Q\n")]
    )


def chunks_merge(
    chunks: Sequence[ChunkPdf],
    *,
    toc_chunk: int | None,
    toc_entries: list[TocEntry],
    stamp: bytes | None,
) -> bytes:
    """Merge `chunks` in order. `toc_entries` are the entries the table of contents in
    chunk `toc_chunk` was laid out with (whole-document pages); `stamp` is a PDF of as
    many pages, drawn over each page (the page numbers)."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, FloatObject, NameObject, NullObject, NumberObject

    writer = PdfWriter()
    readers = [PdfReader(io.BytesIO(chunk.content)) for chunk in chunks]
    heading_at: dict[str, tuple[int, float | None]] = {}
    offset = 0
    for chunk, reader in zip(chunks, readers, strict=True):
        writer.append(reader, import_outline=True)
        tops = _outline_tops(reader)
        keyed = [entry for entry in chunk.toc_entries if entry[3]]
        if len(tops) == len(keyed):  # one bookmark per entry, in the same order
            for (_, _, _, key), (page, top) in zip(keyed, tops, strict=True):
                heading_at[key] = (offset + page, top)  # type: ignore[index]
        else:
            for _, _, page, key in keyed:
                heading_at[key] = (offset + page - 1, None)  # type: ignore[index]
        offset += chunk.page_count
    if readers and readers[0].metadata:
        writer.add_metadata(dict(readers[0].metadata))
    if toc_chunk is not None:
        targets: list[ArrayObject | None] = []
        for _, _, entry_page, key in toc_entries:
            # A heading whose bookmark was not matched is still on the entry's page.
            page, top = heading_at.get(key or "") or (int(entry_page) - 1, None)
            if not 0 <= page < len(writer.pages):
                targets.append(None)
                continue
            targets.append(
                ArrayObject(
                    [
                        writer.pages[page].indirect_reference,
                        NameObject("/XYZ"),
                        NullObject(),
                        NullObject() if top is None else FloatObject(top),
                        NumberObject(0),
                    ]
                )
            )
        first = sum(chunk.page_count for chunk in chunks[:toc_chunk])
        _fix_toc_links(writer, range(first, first + chunks[toc_chunk].page_count), targets)
    return _finished(writer, stamp)


def _finished(writer: PdfWriter, stamp: bytes | None) -> bytes:
    """The merged PDF, with `stamp` (a PDF of as many pages) drawn over each page."""
    from pypdf import PdfReader

    if stamp is not None:
        stamps = PdfReader(io.BytesIO(stamp)).pages
        if len(stamps) != len(writer.pages):
            raise ValueError(f"stamp has {len(stamps)} pages for {len(writer.pages)}")
        for merged_page, over in zip(writer.pages, stamps, strict=True):
            page_overlay(writer, merged_page, over)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def chunks_merge_linked(chunks: Sequence[ChunkPdf], *, stamp: bytes | None) -> bytes:
    """Merge `chunks` in order, pointing each chunk's links to anchors it did not hold
    (its `links`) at those anchors in the other chunks (their `anchors`): the contents'
    entries and any cross-reference. Links within a chunk and bookmarks come along."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.annotations import Link
    from pypdf.generic import Fit

    writer = PdfWriter()
    offsets, offset = [], 0
    readers = [PdfReader(io.BytesIO(chunk.content)) for chunk in chunks]
    for chunk, reader in zip(chunks, readers, strict=True):
        writer.append(reader, import_outline=True)
        offsets.append(offset)
        offset += chunk.page_count
    if readers and readers[0].metadata:
        writer.add_metadata(dict(readers[0].metadata))
    anchors: dict[str, tuple[int, float, float]] = {}
    for chunk, first in zip(chunks, offsets, strict=True):
        for name, (page, left, top) in chunk.anchors.items():
            anchors.setdefault(name, (first + int(page), float(left), float(top)))
    for chunk, first in zip(chunks, offsets, strict=True):
        for page, target, x1, y1, x2, y2 in chunk.links:
            if target not in anchors:
                continue
            to_page, left, top = anchors[target]
            link = Link(
                rect=(x1, y2, x2, y1),
                target_page_index=to_page,
                fit=Fit.xyz(left=left, top=top, zoom=0),
                border=[0, 0, 0],
            )
            writer.add_annotation(first + int(page), link)
    return _finished(writer, stamp)
