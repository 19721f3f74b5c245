"""The post-render steps on real PDFs, each property read back with pikepdf."""

from __future__ import annotations

import base64
import io

import pikepdf
import pytest
from PIL import Image

from rendering.errors import LimitExceeded, RenderError
from rendering.options import parse_options
from rendering.postprocess.pdf_steps import steps_apply
from rendering.postprocess.steps import SIGN_AND_ENCRYPT, parse_steps
from tests.conftest import pdf_text
from tests.rendering.postprocess.conftest import render

A, B = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"


def _pdf(text: str, pages: int = 1, renderer: str = "xhtml2pdf") -> bytes:
    html = "".join(
        f"<div style='page-break-after: always'><p>{text} page {n}</p></div>"
        for n in range(1, pages + 1)
    )
    return render({}, renderer=renderer, html=html).content


def _apply(content: bytes, raw: list, sources=None, max_pages: int = 500):
    return steps_apply(content, parse_steps(raw), sources=sources or {}, max_pages=max_pages)


def test_merge_puts_prepended_and_appended_jobs_in_the_order_named():
    sources = {A: _pdf("COVER"), B: _pdf("ANNEX", pages=2)}
    result = _apply(_pdf("BODY"), [{"type": "merge", "prepend": [A], "append": [B]}], sources)
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        assert len(pdf.pages) == 4
    texts = [pdf_text(result.content)[1]]
    order = [texts[0].index(word) for word in ("COVER", "BODY", "ANNEX page 1", "ANNEX page 2")]
    assert order == sorted(order)
    assert result.page_count == 4
    assert result.checks[0].passed
    assert "1 job(s) prepended, 1 appended: 4 pages (1 of this job)" in result.checks[0].detail


def test_a_merge_past_the_page_limit_is_refused():
    with pytest.raises(LimitExceeded, match="3 pages; the limit is 2"):
        _apply(_pdf("BODY"), [{"type": "merge", "append": [A]}], {A: _pdf("X", 2)}, max_pages=2)


def test_a_merge_source_that_is_not_a_pdf_fails_with_a_message():
    with pytest.raises(RenderError, match="not a readable PDF"):
        _apply(_pdf("BODY"), [{"type": "merge", "append": [A]}], {A: b"GIF89a not a pdf"})


def test_encrypt_is_aes_256_with_both_passwords_and_only_the_permissions_asked():
    step = {
        "type": "encrypt",
        "user_password": "open-me",
        "owner_password": "owner-secret",
        "permissions": ["print", "accessibility"],
    }
    result = _apply(_pdf("SECRET"), [step])
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(result.content))
    with pikepdf.open(io.BytesIO(result.content), password="open-me") as pdf:
        assert pdf.encryption.R == 6
        assert pdf.encryption.bits == 256
        assert str(pdf.encryption.stream_method).endswith("aesv3")
        assert pdf.allow.print_lowres is True
        assert pdf.allow.accessibility is True
        assert pdf.allow.extract is False
        assert pdf.allow.modify_other is False
    with pikepdf.open(io.BytesIO(result.content), password="owner-secret") as pdf:
        assert pdf.owner_password_matched
    assert result.checks[0].passed
    assert "open-me" not in result.checks[0].detail
    assert "owner-secret" not in result.checks[0].detail


def test_stamp_and_attach_read_back():
    payload = b"id,total\n42,1152.00\n"
    result = _apply(
        _pdf("BODY"),
        [
            {"type": "stamp", "text": "COPY"},
            {
                "type": "attach",
                "filename": "totals.csv",
                "content_base64": base64.b64encode(payload).decode(),
                "mime_type": "text/csv",
                "description": "Totals",
            },
        ],
    )
    assert "COPY" in pdf_text(result.content)[1]
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        attached = pdf.attachments["totals.csv"]
        assert attached.get_file().read_bytes() == payload
        assert attached.get_file().mime_type == "text/csv"
        assert attached.obj.AFRelationship == "/Supplement"
        assert attached.obj.objgen in {spec.objgen for spec in pdf.Root.AF}
    assert [check.name for check in result.checks] == ["stamp", "attach"]


def _png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGBA", (width, height), (200, 30, 30, 160)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_an_image_stamp_and_a_pdf_watermark_land_on_every_page():
    logo = _png(60, 30)
    paper = _pdf("LETTERHEAD")
    result = _apply(
        _pdf("BODY", pages=2),
        [
            {"type": "stamp", "image_base64": base64.b64encode(logo).decode()},
            {"type": "stamp", "pdf_base64": base64.b64encode(paper).decode(), "layer": "under"},
        ],
    )
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        assert len(pdf.pages) == 2
        for page in pdf.pages:
            (image,) = page.get_images().values()
            assert (int(image.Width), int(image.Height)) == (60, 30)
    pages = pdf_text(result.content)[1:]
    for number, text in enumerate(pages, start=1):
        # Under the page's own content: the letterhead's text comes first.
        assert text.index("LETTERHEAD") < text.index(f"BODY page {number}")
    assert [check.name for check in result.checks] == ["stamp", "stamp"]
    assert "an image" in result.checks[0].detail
    assert "under the content of every page" in result.checks[1].detail


def test_a_stamp_file_that_cannot_be_read_fails_the_job_with_a_message():
    not_a_png = b"\x89PNG\r\n\x1a\n" + b"garbage" * 10
    with pytest.raises(RenderError, match="stamp: the image could not be read"):
        _apply(
            _pdf("BODY"), [{"type": "stamp", "image_base64": base64.b64encode(not_a_png).decode()}]
        )
    broken = base64.b64encode(b"%PDF-1.7 nothing else").decode()
    with pytest.raises(RenderError, match="stamp: the stamp PDF could not be read"):
        _apply(_pdf("BODY"), [{"type": "stamp", "pdf_base64": broken}])


def _image_pdf(renderer: str) -> bytes:
    picture = Image.effect_mandelbrot((1600, 1200), (-2, -1.2, 1, 1.2), 100).convert("RGB")
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    html = f'<p>Logo</p><img src="{uri}" style="width: 200px">'
    return render({}, renderer=renderer, html=html).content


def _image_streams(content: bytes) -> list[tuple[int, int]]:
    with pikepdf.open(io.BytesIO(content)) as pdf:
        return [
            (int(o.Width), int(o.Height))
            for o in pdf.objects
            if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"
        ]


@pytest.mark.parametrize("renderer", ["xhtml2pdf", "weasyprint"])
def test_optimize_stores_a_repeated_image_once_and_downsamples_it(renderer):
    page = _image_pdf(renderer)
    # The same job merged twice carries the image twice: a copy per source.
    merged = _apply(page, [{"type": "merge", "append": [A, B]}], {A: page, B: page}).content
    assert len(_image_streams(merged)) == 3
    result = _apply(merged, [{"type": "optimize", "image_dpi": 72}])
    images = _image_streams(result.content)
    assert len(images) == 1
    assert max(images[0]) <= 842  # the A4 page's long side, 842 pt, at 72 dpi
    assert len(result.content) < len(merged) / 2
    check = result.checks[0]
    assert check.passed
    assert "2 repeated use(s) now share one" in check.detail
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        assert len(pdf.pages) == 3
        for pdf_page in pdf.pages:
            (image,) = pdf_page.get_images().values()
            assert int(image.Width) == images[0][0]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("encrypt", "steps must be a list"),
        ([{"type": "shred"}], "steps[0]: type must be one of: merge, stamp"),
        ([{"type": "encrypt", "owner_password": "abc"}], "owner_password must be 6 to 127"),
        (
            [{"type": "encrypt", "owner_password": "abcdef"}, {"type": "stamp", "text": "x"}],
            "encrypt must be the last step",
        ),
        ([{"type": "merge"}], "merge needs job ids"),
        ([{"type": "merge", "append": ["nope"]}], "not a job id"),
        ([{"type": "optimize", "image_dpi": 5}], "image_dpi must be a whole number from 50"),
        ([{"type": "attach", "filename": "../x", "content_base64": ""}], "plain file name"),
        ([{"type": "attach", "filename": "a.txt", "content_base64": "%%"}], "not valid base64"),
        ([{"type": "encrypt", "owner_password": "abcdef", "pin": 1}], "unknown field(s) pin"),
        ([{"type": "stamp", "text": "A", "image_base64": ""}], "stamp takes one of text"),
        ([{"type": "stamp", "image_base64": "%%"}], "stamp.image_base64 is not valid base64"),
        ([{"type": "stamp", "image_base64": "aGVsbG8="}], "must be a PNG, JPEG, GIF, WebP"),
        ([{"type": "stamp", "pdf_base64": "aGVsbG8="}], "stamp.pdf_base64 is not a PDF"),
    ],
)
def test_bad_steps_are_refused_naming_the_step(raw, message):
    with pytest.raises(RenderError) as raised:
        parse_steps(raw)
    assert message in raised.value.message
    assert raised.value.code == "invalid_data"


@pytest.mark.parametrize("order", [("sign", "encrypt"), ("encrypt", "sign")])
def test_sign_and_encrypt_cannot_be_combined_in_either_order(order):
    raw = {
        "sign": {"type": "sign", "certificate": "0c6f1a47-6e7c-4c55-9f5b-8a2f1f6b4f0e"},
        "encrypt": {"type": "encrypt", "owner_password": "abcdef"},
    }
    with pytest.raises(RenderError) as raised:
        parse_steps([raw[kind] for kind in order])
    assert raised.value.message == SIGN_AND_ENCRYPT
    assert raised.value.code == "invalid_data"


def test_a_huge_attachment_is_a_413():
    huge = base64.b64encode(b"x" * (5 * 1024 * 1024 + 10)).decode()
    with pytest.raises(RenderError) as raised:
        parse_steps([{"type": "attach", "filename": "big.bin", "content_base64": huge}])
    assert raised.value.http_status == 413
    with pytest.raises(RenderError) as raised:
        parse_steps([{"type": "stamp", "image_base64": huge}])
    assert raised.value.http_status == 413


def test_what_a_profile_forbids_is_refused_before_anything_runs():
    pdfa = parse_options({"pdf": {"profile": "pdf/a-3b"}}).pdf
    with pytest.raises(RenderError, match="pdf/a-3b forbids encryption"):
        parse_steps([{"type": "encrypt", "owner_password": "abcdef"}], pdfa)
    pdfa2 = parse_options({"pdf": {"profile": "pdf/a-2b"}}).pdf
    attach = {"type": "attach", "filename": "a.txt", "content_base64": "eA=="}
    with pytest.raises(RenderError, match="use pdf/a-3b to attach"):
        parse_steps([attach], pdfa2)
    assert parse_steps([attach], pdfa)[0]["filename"] == "a.txt"


@pytest.mark.parametrize("renderer", ["xhtml2pdf", "weasyprint"])
def test_the_renderers_store_an_image_used_on_every_page_once(renderer):
    # gotenberg#1077: a logo repeated per page must not be embedded per use.
    picture = Image.effect_mandelbrot((400, 300), (-2, -1.2, 1, 1.2), 50).convert("RGB")
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    html = "".join(
        f'<div style="page-break-after: always"><img src="{uri}" style="width: 100px">'
        f"<p>page {n}</p></div>"
        for n in range(4)
    )
    content = render({}, renderer=renderer, html=html).content
    with pikepdf.open(io.BytesIO(content)) as pdf:
        assert len(pdf.pages) >= 4
        shown = {image.objgen for page in pdf.pages for image in page.get_images().values()}
    assert len(shown) == 1
    assert len(_image_streams(content)) == 1


def test_optimize_never_makes_a_file_without_images_larger():
    content = _pdf("TEXT ONLY", pages=3, renderer="weasyprint")
    result = _apply(content, [{"type": "optimize", "image_dpi": 150}])
    assert len(result.content) <= len(content)
    assert result.checks[0].passed
