"""Word documents for the docx tests, written with python-docx as an author writes them in
Word: tags in the text, a table whose middle row loops over the lines, a paragraph shown
only when the invoice is paid, a place for the logo."""

from __future__ import annotations

import base64
import io
import struct
import zipfile
import zlib

from docx import Document


def invoice_docx(*, extra_paragraph: str = "") -> bytes:
    document = Document()
    document.add_heading("Invoice {{ number }}", 1)
    document.add_paragraph("Bill to: {{ customer.name }} <{{ customer.email }}>")
    table = document.add_table(rows=4, cols=2)
    table.rows[0].cells[0].text = "Item"
    table.rows[0].cells[1].text = "Amount"
    table.rows[1].cells[0].text = "{%tr for line in lines %}"
    table.rows[2].cells[0].text = "{{ line.item }}"
    table.rows[2].cells[1].text = "{{ line.amount }}"
    table.rows[3].cells[0].text = "{%tr endfor %}"
    document.add_paragraph("{%p if paid %}")
    document.add_paragraph("PAID in full")
    document.add_paragraph("{%p endif %}")
    document.add_paragraph("{{ logo }}")
    if extra_paragraph:
        document.add_paragraph(extra_paragraph)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def png_data_uri(width: int = 40, height: int = 20) -> str:
    """A red PNG of that many pixels, as a data URI."""
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


INVOICE_DATA = {
    "number": "A-17",
    "customer": {"name": "Ada & Co", "email": "ada@example.com"},
    "lines": [{"item": "Widget", "amount": "3.00"}, {"item": "Gadget", "amount": "4.50"}],
    "paid": True,
}


def zip_bomb(*, parts: int = 1, part_bytes: int = 20 * 1024 * 1024, entity: bool = False) -> bytes:
    """A zip of `parts` parts of zeros: one part of 20 MB is compressed about a thousand
    times (a bomb's ratio); thousands of parts are a bomb's entry count. With `entity`, a
    part declares an XML entity (the start of a billion laughs)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for index in range(parts):
            archive.writestr(f"word/part{index}.bin", b"\x00" * part_bytes)
        if entity:
            laughs = b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY lol "lol">]><d>&lol;</d>'
            archive.writestr("word/document.xml", laughs)
    return out.getvalue()
