"""The filled .docx's zip writer: a part whose bytes are the kept part's is copied as it was
deflated once, any other deflated afresh; the zip reads back whole and stops at its limit."""

from __future__ import annotations

import io
import os
import zipfile
from types import SimpleNamespace

import pytest

from rendering.engines import docx_zip
from rendering.engines.docx_zip import Deflated, KeptPartsZipWriter
from rendering.errors import LimitExceeded


def _uri(name: str) -> SimpleNamespace:  # as python-docx's PackURI gives the writer
    return SimpleNamespace(membername=name)


def test_a_kept_part_is_copied_and_a_changed_or_new_one_deflated_afresh(monkeypatch):
    styles = b"<w:styles>" + b"<w:style/>" * 2000 + b"</w:styles>"
    kept = {"word/styles.xml": Deflated.of(styles), "word/document.xml": Deflated.of(b"<a/>")}
    deflated: list[bytes] = []
    of = Deflated.of

    def counted(blob: bytes) -> Deflated:
        deflated.append(blob)
        return of(blob)

    monkeypatch.setattr(docx_zip.Deflated, "of", counted)
    out = io.BytesIO()
    writer = KeptPartsZipWriter(out, kept, max_bytes=1 << 20)
    writer.write(_uri("word/styles.xml"), styles)
    writer.write(_uri("word/document.xml"), b"<a>filled</a>")
    writer.write(_uri("word/media/image1.png"), b"\x89PNG")
    writer.close()
    assert deflated == [b"<a>filled</a>", b"\x89PNG"]
    with zipfile.ZipFile(out) as archive:
        assert archive.testzip() is None
        assert archive.namelist() == [
            "word/styles.xml",
            "word/document.xml",
            "word/media/image1.png",
        ]
        assert archive.read("word/styles.xml") == styles
        assert archive.read("word/document.xml") == b"<a>filled</a>"
        assert {entry.compress_type for entry in archive.infolist()} == {zipfile.ZIP_DEFLATED}


def test_the_same_parts_give_the_same_bytes_and_a_non_ascii_name_reads_back():
    def written() -> bytes:
        out = io.BytesIO()
        writer = KeptPartsZipWriter(out, {}, max_bytes=1 << 20)
        writer.write(_uri("word/média.xml"), b"<x/>")
        writer.close()
        return out.getvalue()

    assert written() == written()  # no clock in it
    with zipfile.ZipFile(io.BytesIO(written())) as archive:
        assert archive.read("word/média.xml") == b"<x/>"


def test_a_zip_past_its_limit_is_refused_while_it_is_written():
    out = io.BytesIO()
    writer = KeptPartsZipWriter(out, {}, max_bytes=4096)
    with pytest.raises(LimitExceeded, match="filled document is larger"):
        writer.write(_uri("word/media/noise.bin"), os.urandom(8192))  # incompressible
    assert len(out.getvalue()) <= 4096
