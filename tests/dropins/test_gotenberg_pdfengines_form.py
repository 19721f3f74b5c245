"""Gotenberg's PDF-engine form fields mapped onto our steps, and what is refused (with
the field named) before any job is made."""

from __future__ import annotations

import base64

import pytest

from dropins.gotenberg_pdfengines_form import (
    fields_check,
    layer_files,
    pdf_uploads,
    split_ask,
    steps_from_fields,
)
from rendering.errors import InvalidInput
from rendering.postprocess.steps import parse_steps

PDF = b"%PDF-1.7\n"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(20)


def test_uploads_are_sorted_by_file_name_and_must_be_pdfs():
    files = [("files", "b.pdf", PDF), ("files", "a.pdf", PDF + b"a")]
    assert [name for name, _ in pdf_uploads(files)] == ["a.pdf", "b.pdf"]
    with pytest.raises(InvalidInput, match=r"notes\.txt is not a PDF"):
        pdf_uploads([("files", "notes.txt", b"hello")])
    with pytest.raises(InvalidInput, match="send at most 20 PDFs"):
        pdf_uploads([("files", f"{n:02}.pdf", PDF) for n in range(21)])
    with pytest.raises(InvalidInput, match="embeds is not supported"):
        pdf_uploads([("files", "a.pdf", PDF), ("embeds", "data.xml", b"<x/>")])


def test_the_stamp_and_watermark_files_are_not_among_the_pdfs():
    files = [("files", "a.pdf", PDF), ("stamp", "stamp", PNG), ("watermark", "w.pdf", PDF)]
    assert pdf_uploads(files) == [("a.pdf", PDF)]
    assert layer_files(files) == {"stamp": ("stamp", PNG), "watermark": ("w.pdf", PDF)}
    with pytest.raises(InvalidInput, match="Send one file under stamp"):
        layer_files([("stamp", "a.png", PNG), ("stamp", "b.png", PNG)])


def test_image_and_pdf_layers_become_stamp_steps_with_their_file():
    layers = {"stamp": ("logo.png", PNG), "watermark": ("paper.pdf", PDF)}
    fields = {
        "stampSource": "image",
        "stampExpression": "logo.png",
        "watermarkSource": "pdf",
    }
    parsed = parse_steps(steps_from_fields(fields, layers))
    assert parsed == [
        {"type": "stamp", "pdf_base64": base64.b64encode(PDF).decode(), "layer": "under"},
        {"type": "stamp", "image_base64": base64.b64encode(PNG).decode()},
    ]


def test_fields_map_onto_steps_in_gotenbergs_order():
    steps = steps_from_fields(
        {
            "rotateAngle": "90",
            "rotatePages": "1-2",
            "watermarkSource": "text",
            "watermarkExpression": "DRAFT",
            "stampExpression": "PAID",
            "metadata": '{"Title": "Q3", "Keywords": "a, b"}',
            "userPassword": "user-pw",
            "ownerPassword": "owner-pw",
        }
    )
    parsed = parse_steps(steps)  # the API's own checks accept what the fields make
    assert [s["type"] for s in parsed] == ["rotate", "stamp", "stamp", "metadata", "encrypt"]
    assert parsed[1] == {"type": "stamp", "text": "DRAFT", "layer": "under"}
    assert parsed[3]["keywords"] == ["a", "b"]


def test_a_lone_user_password_gets_a_different_owner_password():
    (step,) = parse_steps(steps_from_fields({"userPassword": "user-pw"}))
    assert step["user_password"] == "user-pw"
    assert step["owner_password"] not in ("", "user-pw")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"colour": "red"}, "Unknown form field(s) colour"),
        ({"pdfa": "PDF/A-2b"}, "pdfa=PDF/A-2b is not supported"),
        ({"metadata": '{"Colour": "red"}'}, "metadata: Colour cannot be written"),
        ({"metadata": "[1]"}, "metadata must be a JSON object"),
        ({"splitMode": "intervals", "splitSpan": "0"}, "splitSpan must be a whole number"),
        ({"splitMode": "thirds", "splitSpan": "1"}, "splitMode must be intervals or pages"),
        ({"stampSource": "svg", "stampExpression": "x"}, "stampSource=svg is not supported"),
        ({"stampSource": "image", "stampExpression": "x"}, "upload the image under the form"),
        ({"downloadFrom": '[{"url": "https://x/a.pdf"}]', "pdfua": "true"}, "pdfua=true is not"),
        ({"rotateAngle": "left"}, "rotateAngle must be 90, 180 or 270"),
        ({"ownerPassword": "abc"}, "ownerPassword must be 6 to 127 characters"),
        ({"userPassword": "same-pw", "ownerPassword": "same-pw"}, "must differ from userPassword"),
    ],
)
def test_bad_fields_are_refused_naming_the_field(fields, message):
    with pytest.raises(InvalidInput) as raised:
        _mapped(fields)
    assert message in raised.value.message


STAMP = ("stampSource", "stampExpression")


def _mapped(fields: dict[str, str]) -> None:
    known = ("metadata", "splitMode", "splitSpan", "rotateAngle", "userPassword", "ownerPassword")
    fields_check(fields, (*known, *STAMP))
    if "splitMode" in fields:
        split_ask(fields)
    steps_from_fields(fields, {})


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"stampSource": "pdf"}, "stampExpression=x.pdf names no file sent under stamp"),
        ({"stampSource": "image"}, "stampSource=image: stamp.pdf is a PDF"),
        ({"stampSource": "text"}, "A file was sent under stamp: send stampSource=image or pdf"),
    ],
)
def test_a_stamp_file_must_match_its_source_and_expression(fields, message):
    expression = {"stampExpression": "x.pdf"} if fields["stampSource"] == "pdf" else {}
    with pytest.raises(InvalidInput, match=message):
        steps_from_fields({**fields, **expression}, {"stamp": ("stamp.pdf", PDF)})


def test_split_asks_name_the_page_ranges_of_each_output_file():
    intervals = split_ask({"splitMode": "intervals", "splitSpan": "2"})
    assert intervals.ranges(5) == ["1-2", "3-4", "5-5"]
    pages = split_ask({"splitMode": "pages", "splitSpan": "2-3,5-"})
    assert (pages.unify, pages.ranges(6)) == (False, ["2", "3", "5", "6"])
    assert split_ask({"splitMode": "pages", "splitSpan": "1", "splitUnify": "true"}).unify
    with pytest.raises(InvalidInput, match="splitSpan: pages are counted from 1"):
        split_ask({"splitMode": "pages", "splitSpan": "0-2"})
