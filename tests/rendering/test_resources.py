"""Locked-down resources: each probe opens no file and no socket, and the report still renders
with the resource dropped and a warning recorded."""

from __future__ import annotations

import dataclasses
import io
import mimetypes
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from xhtml2pdf import pisa

from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from rendering.resources import ASSETS_DIR, collect_warnings, resource_policy
from reports.limits import limits_from_settings
from tests.conftest import pdf_text
from tests.rendering.probe_server import recording_server

# Audit hooks cannot be removed, so one hook records into whichever list is active.
_recording: list[list[tuple[str, str]]] = []


def _audit(event: str, args: tuple) -> None:
    if _recording and event in ("open", "socket.connect", "socket.__new__", "os.listdir"):
        _recording[-1].append((event, str(args[0]) if args else ""))


sys.addaudithook(_audit)
# The standard library reads /etc/mime.types once per process; do it before recording.
mimetypes.init()


@contextmanager
def _audited() -> Iterator[list[tuple[str, str]]]:
    events: list[tuple[str, str]] = []
    _recording.append(events)
    try:
        yield events
    finally:
        _recording.pop()


_server = recording_server


@pytest.fixture(scope="module", autouse=True)
def _first_render_done() -> None:
    """One plain render before any test records: a process's first render imports the
    renderer's modules (rendering/renderers/xhtml2pdf.py, rendering/layout.py, ...: their
    .py and .pyc opened by the import system, not by the document). Without it the first
    probe failed whenever this file ran alone or first (order-dependent)."""
    report_render(
        source=TemplateSource(engine="raw", html="<p>warm</p>", css=""),
        data={},
        options=parse_options({}),
        limits=limits_from_settings(),
    )


@pytest.fixture
def secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding files a document must never read."""
    (tmp_path / ".env").write_text("SECRET=1")
    (tmp_path / "secret.txt").write_text("SECRET")
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    return tmp_path


def _render_probe(html: str, css: str = "") -> tuple[str, list[str], list[tuple[str, str]]]:
    with _audited() as events:
        rendered = report_render(
            source=TemplateSource(engine="raw", html=html, css=css),
            data={},
            options=parse_options({}),
            limits=limits_from_settings(),
        )
    return pdf_text(rendered.content)[1], rendered.warnings, events


_TMP = Path(tempfile.gettempdir()).resolve()


def _outside_assets(events: list[tuple[str, str]]) -> list[tuple[str, str]]:
    site = Path(sys.prefix).resolve()
    bad = []
    for event, target in events:
        if event != "open":
            bad.append((event, target))
            continue
        if not target or target.isdigit():
            continue
        path = Path(target).resolve()
        # Imports of Python modules and temporary files are the interpreter's business.
        if (
            path.is_relative_to(ASSETS_DIR)
            or path.is_relative_to(site)
            or path.is_relative_to(_TMP)
        ):
            if "secret" not in target and not target.endswith(".env"):
                continue
        if path.is_relative_to(Path(sys.base_prefix).resolve()):
            continue
        bad.append((event, target))
    return bad


LOCAL_PROBES = [
    '<img src="file:///etc/passwd">',
    '<img src="FILE:///etc/passwd">',
    '<img src="/etc/passwd">',
    '<img src="../../etc/passwd">',
    '<img src="../../secret.txt">',
    '<img src=".env">',
    '<img src="../../.env">',
    '<link rel="stylesheet" href="/etc/passwd">',
    '<link rel="stylesheet" href="../../.env">',
    '<div style="background-image: url(/etc/passwd)">x</div>',
]


@pytest.mark.parametrize("probe", LOCAL_PROBES)
def test_local_file_probes_open_nothing_and_still_render(probe, secrets):
    text, warnings, events = _render_probe(f"<p>BODY-TEXT</p>{probe}")
    assert "BODY-TEXT" in text
    assert _outside_assets(events) == []
    assert not any("passwd" in target or ".env" in target for _, target in events)
    assert warnings, "the refused resource is recorded as a warning"


@pytest.mark.parametrize(
    "css",
    [
        "@import url(/etc/passwd);",
        "@import url('file:///etc/passwd');",
        "p { background-image: url(../../secret.txt); }",
        "@font-face { font-family: x; src: url(/etc/passwd); } p { font-family: x; }",
        "@font-face { font-family: y; src: url(../../.env); } p { font-family: y; }",
    ],
)
def test_css_url_and_font_face_probes_open_nothing(css, secrets):
    text, warnings, events = _render_probe("<p>BODY-TEXT</p>", css=css)
    assert "BODY-TEXT" in text
    assert _outside_assets(events) == []
    assert warnings


REMOTE_PROBES = [
    "http://169.254.169.254/latest/meta-data/",
    "http://127.0.0.1:{port}/x.png",
    "HTTP://127.0.0.1:{port}/upper.png",
    "http://[::ffff:127.0.0.1]:{port}/mapped.png",
    "http://2130706433:{port}/decimal.png",
    "http://0x7f000001:{port}/hex.png",
    "http://localhost:{port}/name.png",
]


@pytest.mark.parametrize("url", REMOTE_PROBES)
def test_network_probes_open_no_socket_and_reach_nothing(url, settings):
    settings.PDF_REMOTE_ALLOWED_HOSTS = []
    with _server() as (port, hits):
        probe = url.format(port=port)
        text, warnings, events = _render_probe(
            f'<p>BODY-TEXT</p><img src="{probe}"><link rel="stylesheet" href="{probe}">',
            css=f"@import url({probe}); p {{ background-image: url({probe}); }}",
        )
    assert "BODY-TEXT" in text
    assert hits == []
    assert [e for e in events if e[0].startswith("socket")] == []
    assert any("not allowed" in w or "internal" in w for w in warnings), warnings


def test_allowlisted_hosts_still_may_not_resolve_to_internal_addresses(settings):
    settings.PDF_REMOTE_ALLOWED_HOSTS = ["localhost", "127.0.0.1"]
    with _server() as (port, hits):
        _, warnings, events = _render_probe(
            f'<p>BODY-TEXT</p><img src="http://localhost:{port}/a.png">'
            f'<img src="http://127.0.0.1:{port}/b.png">'
        )
    assert hits == []
    assert [e for e in events if e[0] == "socket.connect"] == []
    assert any("internal address" in w for w in warnings), warnings


def test_a_redirect_to_a_destination_the_policy_refuses_is_not_followed():
    """Each hop is checked: here the first host is allowed (the policy is widened to
    loopback so a local server can stand in for a public one) and it redirects to a
    host outside the allowlist, as a 302 to 169.254.169.254 would."""
    with _server() as (target_port, target_hits):
        with _server(f"http://localhost:{target_port}/meta") as (port, redirect_hits):
            policy = dataclasses.replace(
                resource_policy(limits_from_settings()),
                allow_remote=True,
                allow_private_networks=True,
                allowed_hosts=frozenset({"127.0.0.1"}),
            )
            out = io.BytesIO()
            with collect_warnings() as warnings:
                pisa.pisaDocument(
                    f'<p>x</p><img src="http://127.0.0.1:{port}/r.png">',
                    dest=out,
                    resource_policy=policy,
                )
    assert redirect_hits == ["/r.png"]
    assert target_hits == []
    assert any("not in the allowed hosts" in w for w in warnings), warnings
    assert out.getvalue().startswith(b"%PDF")


def test_data_uris_and_bundled_assets_are_allowed():
    png = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJ"
        "RU5ErkJggg=="
    )
    text, warnings, _ = _render_probe(
        f'<p>OK</p><img src="data:image/png;base64,{png}" width="10" height="10">'
    )
    assert "OK" in text
    assert not [w for w in warnings if "not allowed" in w or "outside" in w]


def test_the_audit_hook_does_see_reads_of_allowed_files():
    # Guards the probes above: an empty event list must mean "nothing opened".
    with _audited() as events:
        Path(ASSETS_DIR / "fonts" / "README.md").read_text()
    assert ("open", str(ASSETS_DIR / "fonts" / "README.md")) in events


def test_with_an_allowlist_other_hosts_are_refused_before_any_lookup(settings):
    settings.PDF_REMOTE_ALLOWED_HOSTS = ["cdn.example.com"]
    text, warnings, events = _render_probe('<p>BODY</p><img src="http://evil.example.org/x.png">')
    assert "BODY" in text
    assert [e for e in events if e[0].startswith("socket")] == []
    assert any("not in the allowed hosts" in w for w in warnings), warnings
