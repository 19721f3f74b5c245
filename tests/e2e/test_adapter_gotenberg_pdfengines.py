"""Gotenberg's PDF-engine routes on the live stack, called with Gotenberg's own Python
client (gotenberg-client): the PDFs go through a real worker and come back read with pypdf."""

from __future__ import annotations

import io
import time
import zipfile

import pikepdf
import pytest
from gotenberg_client import GotenbergClient, HttpStatusError
from gotenberg_client.options import (
    DownloadFromUrl,
    RotateAngle,
    WatermarkStampOptions,
    WatermarkStampSource,
)
from PIL import Image
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from tests.e2e.file_server import FileServer
from tests.e2e.webhook_receiver import WebhookReceiver
from tests.rendering.form_pdfs import membership_form, pages_pdf

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


@pytest.fixture
def gotenberg(live_stack, integrator):
    # Gotenberg's clients send basic auth (here the key as the username, no password).
    with GotenbergClient(
        f"{live_stack.base_url}/gotenberg", auth=(integrator[1], ""), timeout=60, http2=False
    ) as client:
        yield client


@pytest.fixture
def pdfs(tmp_path):
    files = {
        "b.pdf": pages_pdf(2, title="Second"),
        "a.pdf": pages_pdf(1, title="First"),
        "form.pdf": membership_form(),
    }
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    return tmp_path


def _png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (20, 90, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


def _letterhead() -> bytes:
    out = io.BytesIO()
    page = canvas.Canvas(out, pagesize=A4)
    page.drawString(50, 500, "LETTERHEAD")
    page.save()
    return out.getvalue()


def _images(content: bytes) -> list[list[tuple[int, int]]]:
    """Each page's images (width, height), read back with pikepdf."""
    with pikepdf.open(io.BytesIO(content)) as pdf:
        return [
            [(int(image.Width), int(image.Height)) for image in page.get_images().values()]
            for page in pdf.pages
        ]


def _reader(content: bytes, password: str = "") -> PdfReader:
    reader = PdfReader(io.BytesIO(content))
    if password:
        reader.decrypt(password)
    return reader


def test_merge_joins_pdfs_in_file_name_order_and_writes_metadata(gotenberg, pdfs):
    with gotenberg.merge.merge() as route:
        # The client names the files 00000_b.pdf, 00001_a.pdf: the order given is kept.
        answer = route.merge([pdfs / "b.pdf", pdfs / "a.pdf"]).metadata(title="Merged").run()
    reader = _reader(answer.content)
    assert [p.extract_text().strip() for p in reader.pages] == [
        "Page number 1",
        "Page number 2",
        "Page number 1",
    ]
    assert reader.metadata.title == "Merged"


def test_encrypt_flatten_and_rotate_each_answer_the_pdf(gotenberg, pdfs):
    with gotenberg.encrypt.encrypt() as route:
        answer = route.add_file(pdfs / "b.pdf").user_password("let-me-in").run()
    locked = PdfReader(io.BytesIO(answer.content))
    assert locked.is_encrypted
    assert locked.decrypt("let-me-in")
    assert len(locked.pages) == 2
    with gotenberg.flatten.flatten() as route:
        flat = route.flatten(pdfs / "form.pdf").run()
    assert not _reader(flat.content).get_fields()
    with gotenberg.rotate.rotate() as route:
        turned = route.add_file(pdfs / "b.pdf").rotate(RotateAngle.Clockwise90, pages="2").run()
    assert [p.rotation for p in _reader(turned.content).pages] == [0, 90]


def test_split_stamp_and_watermark(gotenberg, pdfs):
    with gotenberg.split.split() as route:
        answer = (
            route.split(pdfs / "b.pdf")
            .split_mode("pages")
            .split_span("2")
            .split_unify(split_unify=True)
            .run()
        )
    assert [p.extract_text().strip() for p in _reader(answer.content).pages] == ["Page number 2"]
    with gotenberg.stamp.stamp() as route:
        route.add_file(pdfs / "a.pdf").stamp_source(WatermarkStampSource.Text)
        route.stamp_options(WatermarkStampOptions(opacity=0.5))
        stamped = route.stamp_expression("APPROVED").run()
    assert "APPROVED" in _reader(stamped.content).pages[0].extract_text()
    assert "stampOptions is ignored" in stamped.headers["X-Job-Warnings"]
    with gotenberg.watermark.watermark() as route:
        route.add_file(pdfs / "a.pdf").watermark_source(WatermarkStampSource.Text)
        marked = route.watermark_expression("DRAFT").run()
    text = _reader(marked.content).pages[0].extract_text()
    assert text.index("DRAFT") < text.index("Page number 1")  # drawn under the content


def test_split_into_intervals_answers_a_zip_of_the_parts(gotenberg, pdfs):
    with gotenberg.split.split() as route:
        answer = route.split(pdfs / "b.pdf").split_mode("intervals").split_span("1").run()
    assert answer.is_zip
    with zipfile.ZipFile(io.BytesIO(answer.content)) as archive:
        assert sorted(archive.namelist()) == ["b_0.pdf", "b_1.pdf"]
        second = _reader(archive.read("b_1.pdf")).pages
    assert [p.extract_text().strip() for p in second] == ["Page number 2"]


def test_per_file_routes_answer_a_zip_for_several_files(gotenberg, pdfs):
    with gotenberg.rotate.rotate() as route:
        answer = (
            route.add_files([pdfs / "a.pdf", pdfs / "b.pdf"]).rotate(RotateAngle.Clockwise180).run()
        )
    assert answer.is_zip
    with zipfile.ZipFile(io.BytesIO(answer.content)) as archive:
        assert sorted(archive.namelist()) == ["a.pdf", "b.pdf"]
        pages = _reader(archive.read("b.pdf")).pages
    assert [p.rotation for p in pages] == [180, 180]


def test_metadata_read_answers_each_files_information(gotenberg, pdfs):
    with gotenberg.metadata.read() as route:
        found = route.read_files([pdfs / "a.pdf", pdfs / "b.pdf"]).run()
    assert found["a.pdf"]["Title"] == "First"
    assert (found["b.pdf"]["Title"], found["b.pdf"]["PageCount"]) == ("Second", 2)


def test_bad_input_is_a_4xx_with_a_message(gotenberg, pdfs, tmp_path):
    (tmp_path / "notes.pdf").write_bytes(b"just some text")
    locked = io.BytesIO()
    with pikepdf.open(io.BytesIO(pages_pdf(1))) as pdf:
        pdf.save(locked, encryption=pikepdf.Encryption(owner="owner-pw", user="user-pw"))
    (tmp_path / "locked.pdf").write_bytes(locked.getvalue())
    with gotenberg.flatten.flatten() as route, pytest.raises(HttpStatusError) as raised:
        route.flatten(tmp_path / "notes.pdf").run()
    assert raised.value.response.status_code == 400
    assert "notes.pdf is not a PDF" in raised.value.response.json()["error"]
    with gotenberg.flatten.flatten() as route, pytest.raises(HttpStatusError) as raised:
        route.flatten(tmp_path / "locked.pdf").run()
    assert 400 <= raised.value.response.status_code < 500
    assert "is encrypted" in raised.value.response.json()["error"]
    with gotenberg.rotate.rotate() as route:
        route.add_file(pdfs / "a.pdf").rotate(RotateAngle.Clockwise90)
        route._form_data["colour"] = "red"  # a field no Gotenberg route takes
        with pytest.raises(HttpStatusError) as raised:
            route.run()
    assert raised.value.response.status_code == 400
    assert "Unknown form field(s) colour" in raised.value.response.json()["error"]


def test_webhook_mode_and_idempotency_key_on_a_pdf_engine_route(gotenberg, pdfs):
    receiver = WebhookReceiver()
    try:
        gotenberg.add_webhook_url(f"{receiver.url}/done")
        gotenberg.add_error_webhook_url(f"{receiver.url}/error")
        gotenberg.add_headers({"Idempotency-Key": "rotate-hook-1"})

        def send():
            with gotenberg.rotate.rotate() as route:
                return route.add_file(pdfs / "b.pdf").rotate(RotateAngle.Clockwise90).run()

        answer = send()
        assert answer.status_code == 204
        receiver.wait(1)
        again = send()  # replayed: the same job, no second delivery
        assert again.status_code == 204
        assert again.headers["x-job-id"] == answer.headers["x-job-id"]
        time.sleep(2)
    finally:
        receiver.server.shutdown()
    assert len(receiver.received) == 1
    method, path, headers, body = receiver.received[0]
    assert (method, path, headers["Content-Type"]) == ("POST", "/done", "application/pdf")
    assert [page.rotation for page in _reader(body).pages] == [90, 90]


def test_image_stamp_and_pdf_watermark_land_on_every_page(gotenberg, pdfs):
    (pdfs / "logo.png").write_bytes(_png(80, 40))
    (pdfs / "paper.pdf").write_bytes(_letterhead())
    with gotenberg.stamp.stamp() as route:
        route.add_file(pdfs / "b.pdf").stamp_source(WatermarkStampSource.Image)
        stamped = route.stamp_file(pdfs / "logo.png").run()
    assert _images(stamped.content) == [[(80, 40)], [(80, 40)]]
    assert [p.extract_text().strip() for p in _reader(stamped.content).pages] == [
        "Page number 1",
        "Page number 2",
    ]
    with gotenberg.watermark.watermark() as route:
        route.add_file(pdfs / "b.pdf").watermark_source(WatermarkStampSource.Pdf)
        marked = route.watermark_file(pdfs / "paper.pdf").run()
    texts = [p.extract_text() for p in _reader(marked.content).pages]
    # The watermark's page goes under each page: its text comes first.
    assert [text.split() for text in texts] == [
        ["LETTERHEAD", "Page", "number", "1"],
        ["LETTERHEAD", "Page", "number", "2"],
    ]
    with gotenberg.stamp.stamp() as route:
        route.add_file(pdfs / "a.pdf").stamp_source(WatermarkStampSource.Image)
        with pytest.raises(HttpStatusError) as raised:
            route.run()  # no stamp file
    assert raised.value.response.status_code == 400
    assert "upload the image under the form field stamp" in raised.value.response.json()["error"]


def test_download_from_merges_the_downloaded_pdfs_and_stamps_a_downloaded_image(gotenberg, pdfs):
    site = FileServer(
        {
            "/files/annex": ("c-annex.pdf", pages_pdf(2, title="Annex")),
            "/files/0-cover.pdf": ("", pages_pdf(3, title="Cover")),
            "/logo": ("logo.png", _png(30, 30)),
        }
    )
    try:
        with gotenberg.merge.merge() as route:
            route.merge([pdfs / "a.pdf"]).download_from(
                [
                    DownloadFromUrl(
                        f"{site.url}/files/annex",
                        extra_http_headers={"Authorization": "Bearer files-secret"},
                    ),
                    DownloadFromUrl(f"{site.url}/files/0-cover.pdf"),
                    DownloadFromUrl(f"{site.url}/logo", field="stamp"),
                ]
            )
            route.stamp_source(WatermarkStampSource.Image)
            merged = route.run()
        with gotenberg.merge.merge() as route:
            route.merge([pdfs / "a.pdf"])
            route.download_from([DownloadFromUrl(f"{site.url}/missing.pdf")])
            with pytest.raises(HttpStatusError) as missing:
                route.run()
    finally:
        site.close()
    reader = _reader(merged.content)
    # By file name, as if uploaded: 0-cover.pdf (named by its URL, 3 pages), then the
    # client's 00000_a.pdf (1), then c-annex.pdf (named by Content-Disposition, 2).
    assert [p.extract_text().strip()[-1] for p in reader.pages] == list("123112")
    assert _images(merged.content) == [[(30, 30)]] * 6
    headers = {path: sent for path, sent in site.requests}
    assert headers["/files/annex"]["Authorization"] == "Bearer files-secret"
    assert "Authorization" not in headers["/files/0-cover.pdf"]
    assert missing.value.response.status_code == 400
    assert "missing.pdf answered HTTP 404" in missing.value.response.json()["error"]
