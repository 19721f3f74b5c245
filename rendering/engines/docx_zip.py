"""The filled .docx written as a zip that copies the template's parts the fill left as they
were, deflated once per kept template, instead of deflating them again in every job."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from rendering.errors import LimitExceeded
from rendering.limits import size_text

if TYPE_CHECKING:
    from docx.opc.package import OpcPackage

# Level 1: the filled document goes straight to LibreOffice, and a Word file's largest
# parts (styles, hundreds of KB of XML) pack at level 6 in about three times as long for
# a third less.
_LEVEL = 1
# Every entry dated 1980-01-01 00:00 (the zip format's first day): the same fill gives the
# same bytes, and LibreOffice reads no dates from the parts.
_DOS_DATE = (0 << 9) | (1 << 5) | 1
_DOS_TIME = 0
_UTF8_NAME = 0x800
_VERSION = 20  # 2.0: deflate, no zip64 (the output is held far below 4 GB by the limits)


@dataclass(frozen=True)
class Deflated:
    """One part's bytes and their raw deflate stream, as a zip entry holds them."""

    blob: bytes
    data: bytes
    crc: int

    @classmethod
    def of(cls, blob: bytes) -> Deflated:
        packer = zlib.compressobj(_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
        return cls(blob, packer.compress(blob) + packer.flush(), zlib.crc32(blob))


def package_parts(package: OpcPackage) -> Iterable[tuple[str, bytes]]:
    """Each part's zip name and bytes, and its relationships', as python-docx saves them
    (docx.opc.pkgwriter.PackageWriter._write_parts): serialising the XML runs no template
    code."""
    for part in package.parts:
        yield part.partname.membername, part.blob
        if len(part.rels):
            yield part.partname.rels_uri.membername, part.rels.xml


def deflated_parts(package: OpcPackage) -> dict[str, Deflated]:
    """The package's parts deflated, by zip name: what a fill of it copies unchanged."""
    return {name: Deflated.of(blob) for name, blob in package_parts(package)}


class KeptPartsZipWriter:
    """python-docx's zip writer (docx.opc.phys_pkg._ZipPkgWriter: write(pack_uri, blob),
    close()) that copies a part's kept deflate stream when its bytes are the kept part's
    (compared whole: a part the fill changed, however slightly, is deflated afresh), and
    refuses to write past `max_bytes`."""

    def __init__(self, out: IO[bytes], kept: Mapping[str, Deflated], max_bytes: int) -> None:
        self._out = out
        self._kept = kept
        self._max_bytes = max_bytes
        self._central: list[bytes] = []
        self._offset = 0

    def write(self, pack_uri: Any, blob: bytes) -> None:
        name: str = pack_uri.membername
        entry = self._kept.get(name)
        if entry is None or entry.blob != blob:
            entry = Deflated.of(blob)
        encoded = name.encode()
        flags = 0 if encoded.isascii() else _UTF8_NAME
        fields = (
            _VERSION,
            flags,
            zlib.DEFLATED,
            _DOS_TIME,
            _DOS_DATE,
            entry.crc,
            len(entry.data),
            len(entry.blob),
            len(encoded),
        )
        local = struct.pack("<IHHHHHIIIHH", 0x04034B50, *fields, 0) + encoded
        self._central.append(
            struct.pack(
                "<IHHHHHHIIIHHHHHII", 0x02014B50, _VERSION, *fields, 0, 0, 0, 0, 0, self._offset
            )
            + encoded
        )
        self._emit(local)
        self._emit(entry.data)

    def close(self) -> None:
        directory = b"".join(self._central)
        count = len(self._central)
        start = self._offset
        self._emit(directory)
        self._emit(
            struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(directory), start, 0)
        )

    def _emit(self, data: bytes) -> None:
        self._offset += len(data)
        if self._offset > self._max_bytes:
            raise LimitExceeded(
                f"The filled document is larger than the {size_text(self._max_bytes)} allowed."
            )
        self._out.write(data)
