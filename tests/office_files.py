"""Small office files built in code for the conversion tests (no binaries in the tree)."""

from __future__ import annotations

import io
import zipfile

_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml"
 ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>"""
_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1"
 Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
 Target="word/document.xml"/>
</Relationships>"""
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_BREAK = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>'


def docx(*pages: str, prolog: str = "") -> bytes:
    """A Word document with each text on a page of its own."""
    body = _BREAK.join(f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>" for text in pages)
    document = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>{prolog}'
        f'<w:document xmlns:w="{_W}"><w:body>{body}</w:body></w:document>'
    )
    return zipped(
        {
            "[Content_Types].xml": _TYPES,
            "_rels/.rels": _RELS,
            "word/document.xml": document,
        }
    )


_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_LINKED_PICTURE = (
    '<w:r><w:drawing><wp:inline><wp:extent cx="914400" cy="914400"/><wp:docPr id="1" name="p"/>'
    '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">'
    '<pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="p"/><pic:cNvPicPr/></pic:nvPicPr>'
    '<pic:blipFill><a:blip r:link="rId9"/></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/>'
    '<a:ext cx="914400" cy="914400"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic>'
    "</a:graphicData></a:graphic></wp:inline></w:drawing></w:r>"
)


def docx_linking(url: str, text: str) -> bytes:
    """A Word document showing a picture linked from `url` (an external relationship,
    which plain `soffice --convert-to pdf` fetches)."""
    document = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{_W}" '
        f'xmlns:r="{_R}" '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">'
        f"<w:body><w:p><w:r><w:t>{text}</w:t></w:r>{_LINKED_PICTURE}</w:p></w:body></w:document>"
    )
    relationships = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships '
        'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId9" Type="{_R}/image" Target="{url}" TargetMode="External"/>'
        "</Relationships>"
    )
    return zipped(
        {
            "[Content_Types].xml": _TYPES,
            "_rels/.rels": _RELS,
            "word/document.xml": document,
            "word/_rels/document.xml.rels": relationships,
        }
    )


def zipped(entries: dict[str, str | bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return out.getvalue()


def xlsx(rows: list[list[str]]) -> bytes:
    """A workbook of one sheet whose cells hold these strings."""
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    package = "http://schemas.openxmlformats.org/package/2006/relationships"
    ooxml = "application/vnd.openxmlformats-officedocument.spreadsheetml"
    cells = "".join(
        f'<row r="{r}">'
        + "".join(
            f'<c r="{chr(65 + c)}{r}" t="inlineStr"><is><t>{value}</t></is></c>'
            for c, value in enumerate(row)
        )
        + "</row>"
        for r, row in enumerate(rows, start=1)
    )
    return zipped(
        {
            "[Content_Types].xml": (
                '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.'
                'openxmlformats.org/package/2006/content-types"><Default Extension="rels" '
                'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                '<Default Extension="xml" ContentType="application/xml"/>'
                f'<Override PartName="/xl/workbook.xml" ContentType="{ooxml}.sheet.main+xml"/>'
                '<Override PartName="/xl/worksheets/sheet1.xml" '
                f'ContentType="{ooxml}.worksheet+xml"/></Types>'
            ),
            "_rels/.rels": (
                f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{package}">'
                f'<Relationship Id="rId1" Type="{_R}/officeDocument" Target="xl/workbook.xml"/>'
                "</Relationships>"
            ),
            "xl/workbook.xml": (
                f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{main}" '
                f'xmlns:r="{_R}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/>'
                "</sheets></workbook>"
            ),
            "xl/_rels/workbook.xml.rels": (
                f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{package}">'
                f'<Relationship Id="rId1" Type="{_R}/worksheet" Target="worksheets/sheet1.xml"/>'
                "</Relationships>"
            ),
            "xl/worksheets/sheet1.xml": (
                f'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{main}">'
                f"<sheetData>{cells}</sheetData></worksheet>"
            ),
        }
    )


def odp(*slides: str) -> bytes:
    """An OpenDocument presentation with one text frame on each slide."""
    ns = (
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
        'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
        'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"'
    )
    pages = "".join(
        f'<draw:page draw:name="s{n}"><draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" '
        f'svg:height="3cm"><draw:text-box><text:p>{text}</text:p></draw:text-box></draw:frame>'
        "</draw:page>"
        for n, text in enumerate(slides)
    )
    mime = "application/vnd.oasis.opendocument.presentation"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", mime, compress_type=zipfile.ZIP_STORED)
        archive.writestr(
            "content.xml",
            f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ns} '
            f'office:version="1.2"><office:body><office:presentation>{pages}'
            "</office:presentation></office:body></office:document-content>",
        )
        archive.writestr(
            "META-INF/manifest.xml",
            '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:'
            'names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
            f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mime}"/>'
            '<manifest:file-entry manifest:full-path="content.xml" '
            'manifest:media-type="text/xml"/></manifest:manifest>',
        )
    return out.getvalue()
