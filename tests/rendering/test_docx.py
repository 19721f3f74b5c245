"""Word templates (engine docx): the tags of a real .docx filled in the Jinja sandbox,
table rows looped, paragraphs kept or dropped, images from data URIs placed, its names
made a schema; what is no Word document, a zip bomb or a tag that does not parse is a
template error saying so."""

from __future__ import annotations

import io

import pytest
from docx import Document
from docx.shared import Mm

from rendering.digest_memo import digest_of
from rendering.engines import get_engine, template_file_defaults, template_file_source
from rendering.engines.docx import DOCX_ENGINE, docx_file, docx_fill, docx_source
from rendering.errors import InvalidInput, LimitExceeded, TemplateRuntimeError, TemplateSyntaxError
from rendering.limits import Limits
from tests.rendering.docx_files import INVOICE_DATA, invoice_docx, png_data_uri, zip_bomb


def _read(content: bytes) -> Document:
    return Document(io.BytesIO(content))


def test_tags_rows_conditions_and_an_image_are_filled():
    filled = _read(docx_fill(invoice_docx(), INVOICE_DATA | {"logo": png_data_uri()}))
    texts = [paragraph.text for paragraph in filled.paragraphs]
    assert texts[:3] == ["Invoice A-17", "Bill to: Ada & Co <ada@example.com>", "PAID in full"]
    rows = [[cell.text for cell in row.cells] for row in filled.tables[0].rows]
    assert rows == [["Item", "Amount"], ["Widget", "3.00"], ["Gadget", "4.50"]]
    assert len(filled.inline_shapes) == 1
    # No tag is left in the document.
    assert not any("{" in text for text in texts)


def test_an_unpaid_invoice_drops_the_paragraph_and_an_image_takes_its_width():
    filled = _read(
        docx_fill(
            invoice_docx(extra_paragraph="{{ logo | image(30) }}"),
            INVOICE_DATA | {"paid": False, "logo": png_data_uri(400, 40)},
        )
    )
    assert "PAID in full" not in [paragraph.text for paragraph in filled.paragraphs]
    widths = sorted(shape.width for shape in filled.inline_shapes)
    # 400 px at the default 72 dpi would be 141 mm: as it is, and 30 mm where asked.
    assert widths[0] == Mm(30)
    assert widths[1] > Mm(100)


def test_an_image_wider_than_the_text_is_narrowed_to_it():
    filled = _read(docx_fill(invoice_docx(), INVOICE_DATA | {"logo": png_data_uri(2000, 10)}))
    assert filled.inline_shapes[0].width == Mm(160)


def test_the_names_become_the_schema_and_sample_data():
    source = docx_source(invoice_docx())
    schema, sample = template_file_defaults(DOCX_ENGINE, source)
    assert sorted(schema["properties"]) == ["customer", "lines", "logo", "number", "paid"]
    # Attributes make objects, a row loop a list of objects, the rest values of any type.
    customer = schema["properties"]["customer"]
    assert customer["type"] == "object"
    assert sorted(customer["properties"]) == ["email", "name"]
    lines = schema["properties"]["lines"]
    assert lines["type"] == "array"
    assert sorted(lines["items"]["properties"]) == ["amount", "item"]
    assert lines["items"]["properties"]["item"]["description"] == "lines[].item in the document"
    assert "type" not in schema["properties"]["number"]
    assert sample["number"] == "number"
    assert sample["lines"] == [{"amount": "amount", "item": "item"}]
    # The sample fills the document: every row, name and paragraph shows where it goes.
    filled = _read(docx_fill(docx_file(source), sample | {"logo": ""}))
    assert [[c.text for c in row.cells] for row in filled.tables[0].rows][1] == ["item", "amount"]
    assert filled.paragraphs[1].text == "Bill to: name <email>"
    # template_file (base64 alone) is the same source as the data URI.
    encoded = source.split(",", 1)[1]
    assert template_file_source(DOCX_ENGINE, encoded) == source


def test_the_sandbox_and_the_limits_hold_in_a_word_document():
    forbidden = invoice_docx(extra_paragraph="{{ customer.__class__.__mro__ }}")
    with pytest.raises(TemplateRuntimeError, match="forbidden operation"):
        docx_fill(forbidden, INVOICE_DATA | {"logo": ""})
    endless = invoice_docx(
        extra_paragraph="{% for i in range(99999) %}{% for j in range(99999) %}"
        "{% endfor %}{% endfor %}"
    )
    with pytest.raises(LimitExceeded):
        docx_fill(endless, INVOICE_DATA | {"logo": ""}, Limits(template_timeout_ms=300))


@pytest.mark.parametrize(
    ("source", "error", "message"),
    [
        ("<h1>{{ x }}</h1>", TemplateSyntaxError, "data URI"),
        (docx_source(b"not a zip"), InvalidInput, "not a valid docx file"),
        (docx_source(zip_bomb()), InvalidInput, "zip bomb"),
        (docx_source(zip_bomb(parts=2001, part_bytes=1)), InvalidInput, "2001 entries"),
        (docx_source(zip_bomb(part_bytes=9, entity=True)), InvalidInput, "entity expansion"),
        (docx_source(invoice_docx(extra_paragraph="{{ oops ")), TemplateSyntaxError, "syntax"),
    ],
    ids=["html", "not-a-zip", "ratio", "entries", "entity", "tag"],
)
def test_what_is_not_a_sound_word_template_is_refused_at_save(source, error, message):
    with pytest.raises(error, match=message):
        get_engine(DOCX_ENGINE).check(source)


def test_a_source_that_passed_is_not_checked_again_and_a_failing_one_always_is(monkeypatch):
    from rendering.engines import docx

    engine = get_engine(DOCX_ENGINE)
    sound = docx_source(invoice_docx(extra_paragraph="cached check"))
    broken = docx_source(invoice_docx(extra_paragraph="{{ oops "))
    engine.check(sound)
    assert digest_of(sound) in docx._checked  # the pass is kept by the source's digest
    checks = []
    monkeypatch.setattr(docx, "docx_variables", lambda *args: checks.append(args))
    engine.check(sound)
    assert checks == []
    monkeypatch.undo()
    for _ in range(2):
        with pytest.raises(TemplateSyntaxError, match="syntax"):
            engine.check(broken)
    assert digest_of(broken) not in docx._checked


def test_a_zip_that_is_no_word_document_is_a_template_error():
    with pytest.raises(TemplateSyntaxError, match="not a Word document"):
        docx_fill(docx_file(docx_source(zip_bomb(part_bytes=10))), {})


def test_an_image_that_is_not_one_is_a_template_error():
    with pytest.raises(TemplateRuntimeError, match="PNG, JPEG"):
        docx_fill(invoice_docx(), INVOICE_DATA | {"logo": "data:image/png;base64,AAAA"})


def test_a_tag_that_does_not_parse_is_a_syntax_error_at_fill_too():
    with pytest.raises(TemplateSyntaxError, match="syntax error in the Word document"):
        docx_fill(invoice_docx(extra_paragraph="{{ oops "), INVOICE_DATA | {"logo": ""})


def _body(content: bytes) -> bytes:
    import zipfile

    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return archive.read("word/document.xml")


def test_a_kept_template_fills_each_job_from_its_unfilled_copy():
    from rendering.engines import docx

    template = invoice_docx(extra_paragraph="kept for the next fill {{ number }}")
    paid = _read(docx_fill(template, INVOICE_DATA | {"logo": png_data_uri()}))
    kept = [prepared for prepared in docx._prepared_kept.values()]
    assert any(not prepared.template.is_rendered for prepared in kept)
    # The second fill starts from the template, not from the first fill (filled in a child).
    unpaid = _read(docx_fill(template, INVOICE_DATA | {"number": "B-2", "paid": False, "logo": ""}))
    assert [p.text for p in unpaid.paragraphs][:2] == [
        "Invoice B-2",
        "Bill to: Ada & Co <ada@example.com>",
    ]
    assert "PAID in full" not in [p.text for p in unpaid.paragraphs]
    assert "kept for the next fill B-2" in [p.text for p in unpaid.paragraphs]
    assert len(unpaid.inline_shapes) == 0
    assert len(paid.inline_shapes) == 1
    assert "PAID in full" in [p.text for p in paid.paragraphs]
    # Kept once, by its digest and limits; this process's copy was never rendered.
    assert len(docx._prepared_kept) <= docx._PREPARED_KEPT
    assert all(not prepared.template.is_rendered for prepared in docx._prepared_kept.values())


def test_a_kept_template_fills_as_one_parsed_in_the_child(monkeypatch):
    from rendering.engines import docx

    template = invoice_docx(extra_paragraph="parsed {{ customer.name }} in the child")
    data = INVOICE_DATA | {"logo": ""}
    kept = docx_fill(template, data)
    monkeypatch.setattr(
        docx, "_PREPARED_MAX_XML_BYTES", 0
    )  # too large to keep: parsed in the child
    monkeypatch.setattr(docx, "_prepared_kept", type(docx._prepared_kept)())
    parsed = docx_fill(template, data)
    assert not docx._prepared_kept
    assert _body(kept) == _body(parsed)
    with pytest.raises(LimitExceeded):  # the child's limits hold either way
        docx_fill(
            invoice_docx(
                extra_paragraph="{% for i in range(99999) %}{% for j in range(99999) %}"
                "{% endfor %}{% endfor %}"
            ),
            data,
            Limits(template_timeout_ms=300),
        )


def test_a_kept_template_is_filled_under_the_memory_ceiling_and_this_process_survives():
    doubling = invoice_docx(
        extra_paragraph='{% set ns = namespace(x="a" * 1000000) %}'
        "{% for i in range(40) %}{% set ns.x = ns.x ~ ns.x %}{% endfor %}{{ ns.x|length }}"
    )
    data = INVOICE_DATA | {"logo": ""}
    for _ in range(2):  # parsed and kept here the first time, reused the second
        with pytest.raises(LimitExceeded, match="more than the 64 MB of memory"):
            docx_fill(doubling, data, Limits(template_max_memory_mb=64))
    assert "Invoice A-17" in _body(docx_fill(invoice_docx(), data)).decode()


def test_the_filled_document_is_deflated_and_python_docx_keeps_its_own_writer():
    import zipfile

    from docx.opc import pkgwriter

    writer = pkgwriter.PhysPkgWriter
    filled = docx_fill(invoice_docx(), INVOICE_DATA | {"logo": png_data_uri()})
    with zipfile.ZipFile(io.BytesIO(filled)) as archive:
        entries = archive.infolist()
        assert archive.testzip() is None
    assert {entry.compress_type for entry in entries} == {zipfile.ZIP_DEFLATED}
    styles = next(entry for entry in entries if entry.filename == "word/styles.xml")
    assert styles.compress_size * 5 < styles.file_size
    assert pkgwriter.PhysPkgWriter is writer  # the quicker writer was the child's alone


def test_a_zip_that_passed_is_not_checked_again_and_a_bomb_always_is(monkeypatch):
    from rendering.engines import docx

    sound = invoice_docx(extra_paragraph="zip checked once")
    assert docx_file(docx_source(sound)) == sound
    assert digest_of(sound) in docx._zips_passed
    checks = []
    monkeypatch.setattr(docx, "zip_check", lambda *args: checks.append(args))
    assert docx_file(docx_source(sound)) == sound
    assert checks == []
    monkeypatch.undo()
    bomb = zip_bomb()
    for _ in range(2):
        with pytest.raises(InvalidInput, match="zip bomb"):
            docx_file(docx_source(bomb))
    assert digest_of(bomb) not in docx._zips_passed


def _with_part(content: bytes, name: str, data: bytes) -> bytes:
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(content)) as source, zipfile.ZipFile(out, "w") as target:
        for entry in source.infolist():
            target.writestr(entry, data if entry.filename == name else source.read(entry))
    return out.getvalue()


def test_a_document_this_process_cannot_read_fails_in_the_child_as_before():
    from rendering.engines import docx
    from rendering.errors import RenderError

    broken = _with_part(invoice_docx(), "word/document.xml", b"<w:document><w:body>")
    for _ in range(2):
        with pytest.raises(RenderError, match="stopped unexpectedly"):
            docx_fill(broken, INVOICE_DATA | {"logo": ""})
    assert all(
        prepared.template.template_file.getvalue() != broken
        for prepared in docx._prepared_kept.values()
    )


def test_a_stop_while_the_template_is_read_here_is_not_swallowed(monkeypatch):
    from rendering.engines import docx

    class SoftTimeLimit(Exception):  # as Celery's soft time limit: an Exception
        pass

    def stopped(*args: object) -> None:
        raise SoftTimeLimit

    monkeypatch.setattr(docx._Prepared, "parse", stopped)
    with pytest.raises(SoftTimeLimit):
        docx_fill(invoice_docx(extra_paragraph="stopped while read"), INVOICE_DATA | {"logo": ""})


def _parts(content: bytes) -> dict[str, bytes]:
    import zipfile

    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_a_kept_template_is_not_serialised_deflated_or_patched_again_for_a_fill(monkeypatch):
    from docxtpl import DocxTemplate

    from rendering.engines import docx, docx_zip

    template = invoice_docx(extra_paragraph="prepared once {{ number }}")
    data = INVOICE_DATA | {"logo": png_data_uri()}
    first = docx_fill(template, data)
    (prepared,) = (
        p for p in docx._prepared_kept.values() if p.template.template_file.getvalue() == template
    )
    styles = prepared.parts["word/styles.xml"].blob

    # The child inherits these: had it serialised and patched the body again or deflated
    # the styles again, the fill would stop (an error in the child).
    def refused(*args: object) -> None:
        raise AssertionError("done again for a kept template")

    of = docx_zip.Deflated.of
    monkeypatch.setattr(DocxTemplate, "get_xml", refused)
    monkeypatch.setattr(DocxTemplate, "patch_xml", refused)
    monkeypatch.setattr(
        docx_zip.Deflated, "of", lambda blob: refused() if blob == styles else of(blob)
    )
    second = docx_fill(template, data | {"number": "B-9"})
    monkeypatch.undo()
    assert "prepared once B-9" in [p.text for p in _read(second).paragraphs]
    assert _parts(second)["word/styles.xml"] == styles
    # Only the number differs: every other part is the same, and the same fill gives the
    # same bytes.
    differ = {name for name, part in _parts(first).items() if _parts(second)[name] != part}
    assert differ == {"word/document.xml"}
    assert docx_fill(template, data) == first


def test_a_kept_template_fills_every_part_as_one_parsed_in_the_child(monkeypatch):
    from rendering.engines import docx

    template = invoice_docx(extra_paragraph="every part {{ customer.email }}")
    data = INVOICE_DATA | {"logo": png_data_uri()}
    kept = docx_fill(template, data)
    monkeypatch.setattr(docx, "_PREPARED_MAX_XML_BYTES", 0)  # parsed in the child
    monkeypatch.setattr(docx, "_prepared_kept", type(docx._prepared_kept)())
    assert _parts(docx_fill(template, data)) == _parts(kept)


def test_a_new_version_of_a_template_is_filled_from_its_own_parts():
    from rendering.engines import docx

    first = invoice_docx(extra_paragraph="version {{ number }}")
    styles = _parts(first)["word/styles.xml"]
    assert b'w:styleId="Heading1"' in styles
    second = _with_part(
        first, "word/styles.xml", styles.replace(b'w:styleId="Heading1"', b'w:styleId="Title1"')
    )
    data = INVOICE_DATA | {"logo": ""}
    assert _parts(docx_fill(first, data))["word/styles.xml"] == styles
    filled = _parts(docx_fill(second, data))
    assert b'w:styleId="Title1"' in filled["word/styles.xml"]
    assert b'w:styleId="Heading1"' not in filled["word/styles.xml"]
    assert len([p for p in docx._prepared_kept.values() if not p.template.is_rendered]) >= 2
