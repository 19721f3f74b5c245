"""Office conversions (rendering.office): real files converted by one warm LibreOffice
shared by this module's tests, the PDFs read back; hostile files refused before it runs."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pikepdf
import psutil
import pytest

from rendering.deadline import Interrupted, interruptible
from rendering.errors import InvalidInput
from rendering.limits import Limits
from rendering.office import office_convert, office_source
from rendering.office_files import MAX_ENTRIES, office_prepare
from rendering.office_service import (
    OfficeService,
    OfficeTimeout,
    OfficeUnavailable,
    office_service,
    profile_write,
    profiles_sweep,
)
from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from tests.office_files import docx, docx_linking, odp, xlsx, zipped
from tests.rendering.probe_server import recording_server


def _text(content: bytes) -> str:
    return subprocess.run(
        ["pdftotext", "-layout", "-", "-"], input=content, capture_output=True, check=True
    ).stdout.decode()


def _pages(content: bytes) -> list[tuple[float, float]]:
    with pikepdf.open(io.BytesIO(content)) as pdf:
        return [(float(p.mediabox[2]), float(p.mediabox[3])) for p in pdf.pages]


@pytest.fixture(scope="module")
def office_limits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Limits]:
    """One warm LibreOffice for the module (its profile in a temporary directory)."""
    limits = Limits(office_profile_dir=str(tmp_path_factory.mktemp("office")))
    yield limits
    _service(limits).kill()


def _service(limits: Limits) -> OfficeService:
    return office_service(
        executable=limits.office_path, profile_dir=Path(limits.office_profile_dir)
    )


def test_a_docx_becomes_a_pdf_with_its_text_and_pages(office_limits):
    pdf = office_convert(
        docx("Invoice 42", "Terms"), "invoice.docx", timeout=60, limits=office_limits
    )
    assert len(_pages(pdf)) == 2
    assert "Invoice 42" in _text(pdf)
    started = time.monotonic()  # warm: no LibreOffice starts for the second file
    office_convert(docx("Again"), "again.docx", timeout=60, limits=office_limits)
    assert time.monotonic() - started < 1.0


def test_page_ranges_and_landscape_are_applied_by_libreoffice(office_limits):
    pdf = office_convert(
        docx("one", "two", "three"),
        "a.docx",
        timeout=60,
        page_ranges="2-3",
        landscape=True,
        limits=office_limits,
    )
    pages = _pages(pdf)
    assert len(pages) == 2
    assert all(width > height for width, height in pages)
    assert "two" in _text(pdf)
    assert "one" not in _text(pdf)


def test_several_formats_merge_in_order_into_one_pdfa(office_limits):
    files = [
        ("letter.docx", docx("From the letter")),
        ("notes.md", b"# Markdown heading\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"),
        (
            "page.html",
            b'<html><body><p>From HTML</p><img src="http://example.com/x.png"></body></html>',
        ),
        ("plain.txt", b"Plain text line"),
    ]
    rendered = report_render(
        source=TemplateSource(engine="office", html=office_source(files)),
        data={},
        options=parse_options({"pdf": {"profile": "pdf/a-2b"}, "title": "Bundle"}),
        limits=office_limits,
    )
    text = _text(rendered.content)
    order = [
        text.index(s) for s in ("From the letter", "Markdown heading", "From HTML", "Plain text")
    ]
    assert order == sorted(order)
    assert rendered.page_count == 4
    assert rendered.compliance is not None
    assert all(check["passed"] for check in rendered.compliance["checks"])


def test_spreadsheets_and_presentations_convert_with_their_own_export(office_limits):
    sheet = office_convert(
        xlsx([["Region", "Sales"], ["North", "1200"]]), "s.xlsx", timeout=60, limits=office_limits
    )
    assert "North" in _text(sheet)
    deck = office_convert(odp("Slide one", "Slide two"), "d.odp", timeout=60, limits=office_limits)
    pages = _pages(deck)
    assert len(pages) == 2
    assert pages[0][0] > pages[0][1]  # slides are wider than tall
    assert "Slide two" in _text(deck)


def test_linked_pictures_are_never_fetched(office_limits):
    rtf = b'{\\rtf1\\ansi {\\field{\\*\\fldinst INCLUDEPICTURE "%s" \\\\d}{\\fldrslt x}} text}'
    with recording_server() as (port, hits):
        url = f"http://127.0.0.1:{port}/linked.png"
        pdf = office_convert(
            docx_linking(url, "Linked"), "l.docx", timeout=60, limits=office_limits
        )
        office_convert(rtf % url.encode(), "l.rtf", timeout=60, limits=office_limits)
    assert "Linked" in _text(pdf)
    assert hits == []  # plain `soffice --convert-to pdf` fetches the docx's picture twice


def test_a_cancel_stops_a_conversion_midway_and_takes_its_libreoffice_with_it(office_limits):
    service = _service(office_limits)
    service.start()
    long = docx(*[f"Page {n} " + "lorem ipsum dolor sit amet " * 200 for n in range(60)])

    def cancelled_soon() -> None:
        with interruptible() as stop:
            threading.Timer(0.3, stop).start()  # as the heartbeat does for a cancelled job
            office_convert(long, "long.docx", timeout=60, limits=office_limits)

    started = time.monotonic()
    with pytest.raises(Interrupted):
        cancelled_soon()
    assert time.monotonic() - started < 1.5  # converting it whole takes ~2 s warm
    # Its answer would otherwise be read as the next conversion's.
    assert service.pids() == []


def test_a_conversion_past_its_time_limit_is_killed_and_the_next_one_starts_anew(office_limits):
    service = _service(office_limits)
    service.start()
    before = service.pids()
    with pytest.raises(OfficeTimeout, match="did not finish converting"):
        office_convert(docx("slow"), "slow.docx", timeout=0.001, limits=office_limits)
    assert service.pids() == []
    pdf = office_convert(docx("after"), "after.docx", timeout=60, limits=office_limits)
    assert "after" in _text(pdf)
    assert service.pids() != before


def test_conversions_leave_no_files_behind_in_their_process_directory(office_limits):
    from rendering import office

    office_convert(docx("One"), "one.docx", timeout=60, limits=office_limits)
    work = office._work_dir()
    with pytest.raises(OfficeTimeout):
        office_convert(docx("slow"), "slow.docx", timeout=0.001, limits=office_limits)
    office_convert(docx("Two"), "two.docx", timeout=60, limits=office_limits)
    # One directory a process, made once (no directory per conversion), and empty after.
    assert office._work_dir() == work
    assert list(work.iterdir()) == []


def test_a_libreoffice_that_died_is_a_transient_error_and_replaced(office_limits):
    service = _service(office_limits)
    service.start()
    bridge = psutil.Process(service.pids()[0])
    office = [child for child in bridge.children(recursive=True) if child.name() == "soffice.bin"]
    assert office
    office[0].kill()  # as a crash on some file would
    office[0].wait(10)
    with pytest.raises(OSError, match="stopped during a conversion"):  # retried by the job
        office_convert(docx("lost"), "lost.docx", timeout=60, limits=office_limits)
    pdf = office_convert(docx("back"), "back.docx", timeout=60, limits=office_limits)
    assert "back" in _text(pdf)


def test_a_worker_without_libreoffice_says_what_to_install(tmp_path):
    service = OfficeService(executable="no-such-soffice", profile_dir=tmp_path)
    with pytest.raises(OfficeUnavailable, match="apt-get install libreoffice-writer-nogui"):
        service.convert({}, timeout=1)


def test_the_profiles_of_gone_worker_processes_are_swept(tmp_path):
    gone, mine = tmp_path / "profile-999999999", tmp_path / f"profile-{os.getpid()}"
    for profile in (gone, mine):
        profile_write(profile)
    profiles_sweep(tmp_path)
    assert not gone.exists()
    assert (mine / "user" / "registrymodifications.xcu").is_file()
    assert "DisableMacrosExecution" in (mine / "user" / "registrymodifications.xcu").read_text()


def test_unknown_extensions_are_refused_naming_the_accepted_ones():
    with pytest.raises(InvalidInput, match="docx, xlsx, pptx, odt, ods, odp, rtf, txt, html, md"):
        office_prepare(b"MZ", "setup.exe")


def test_a_zip_bomb_is_refused_before_libreoffice_opens_it():
    bomb = zipped({"[Content_Types].xml": "<Types/>", "word/document.xml": "a" * 50_000_000})
    with pytest.raises(InvalidInput, match="zip bomb"):
        office_prepare(bomb, "bomb.docx")
    many = zipped({f"p{i}.txt": "" for i in range(MAX_ENTRIES + 1)})
    with pytest.raises(InvalidInput, match="entries"):
        office_prepare(many, "many.xlsx")


def test_xml_entity_declarations_are_refused():
    laughs = '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>'
    with pytest.raises(InvalidInput, match="entity expansion"):
        office_prepare(docx("&lol2;", prolog=laughs), "laughs.docx")
    with pytest.raises(InvalidInput, match="entity expansion"):
        office_prepare(b'<!DOCTYPE x [<!ENTITY a "b">]><p>&a;</p>', "page.html")


def test_an_html_page_loses_its_references_outside_it():
    page, kind = office_prepare(
        b'<style>@import "http://a.example/x.css"; p {background: url( https://b.example/)}'
        b'</style><img src="https://tracker.example/p.gif"><a href="//x.example/">x</a>'
        b'<img src="data:image/png;base64,AA==">',
        "p.htm",
    )
    assert kind == "html"
    assert b"tracker.example" in page  # kept as text, no longer a fetchable address
    for reference in (b'src="about:blank#', b'href="about:blank#', b"url( about:blank#"):
        assert reference in page
    assert b'@import "about:blank#' in page
    assert b'src="data:image/png' in page  # what the page carries itself stays


def test_the_fill_child_of_a_word_template_is_reaped_once_its_document_is_converted(
    office_limits, monkeypatch, no_children_exiting
):
    from rendering import isolated
    from rendering.engines.docx import docx_source
    from tests.rendering.docx_files import INVOICE_DATA, invoice_docx

    real_exit = os._exit

    def sleeping_exit(code: int) -> None:  # the fill's child: its exit takes long
        time.sleep(60)
        real_exit(code)

    monkeypatch.setattr(os, "_exit", sleeping_exit)
    exiting: list[int] = []

    def on_stage(stage: str, progress: int) -> None:
        if stage == "converting":  # the job has its filled document; the child still exits
            exiting.extend(isolated._exiting)
            os.kill(exiting[0], signal.SIGKILL)
            while psutil.Process(exiting[0]).status() != psutil.STATUS_ZOMBIE:
                time.sleep(0.01)  # exited before the conversion ends, whatever the load

    rendered = report_render(
        source=TemplateSource(engine="docx", html=docx_source(invoice_docx())),
        data=INVOICE_DATA,
        options=parse_options({}),
        limits=office_limits,
        on_stage=on_stage,
    )
    assert "INVOICE" in _text(rendered.content).upper()
    assert len(exiting) == 1
    assert isolated.exiting_count() == 0  # reaped after the conversion, not at the next job
    with pytest.raises(ChildProcessError):
        os.waitpid(exiting[0], os.WNOHANG)
