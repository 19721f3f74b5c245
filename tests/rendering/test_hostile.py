"""Hostile templates on WeasyPrint and Chromium: no file is read, no internal address is
reached (not by a redirect, a script or a WebSocket either), scripts cannot run for ever,
pages cannot be made huge. xhtml2pdf's probes are in tests/rendering/test_resources.py."""

from __future__ import annotations

import dataclasses
import io
import time
from contextlib import AbstractContextManager

import pytest
from pypdf import PdfReader

from rendering.errors import LimitExceeded
from rendering.fetch import ASSETS_DIR
from rendering.limits import DEFAULT_LIMITS
from rendering.options import parse_options
from rendering.renderers import chromium, weasyprint
from rendering.renderers.base import LayoutBounds, LayoutJob
from rendering.resources import resource_policy
from tests.conftest import pdf_text
from tests.rendering.conftest import render
from tests.rendering.probe_server import recording_server


def _server(location: str = "") -> AbstractContextManager[tuple[int, list[str]]]:
    return recording_server(location, body=b"<p>INTERNAL-ANSWER</p>", content_type="text/html")


def test_local_files_are_not_read(modern_renderer, secret_file):
    url = secret_file.as_uri()
    html = (
        f'<p>BODY</p><img src="{url}"><img src="{secret_file}"><img src="../../etc/passwd">'
        f'<iframe src="{url}"></iframe><object data="{url}"></object>'
        f'<link rel="stylesheet" href="{url}"><div style="background: url({url})">x</div>'
        f"<script>fetch('{url}').then(r => r.text()).then(t => document.body.append(t));"
        f"var x = new XMLHttpRequest(); try {{ x.open('GET', '{url}', false); x.send();"
        " document.body.append(x.responseText); } catch (e) {}</script>"
    )
    rendered = render(modern_renderer, html, css=f"@import url({url});", engine="raw")
    text = pdf_text(rendered.content)[1]
    assert "BODY" in text
    assert "SECRET-CONTENT" not in text
    assert "root:" not in text
    assert rendered.warnings, "each refused resource is recorded"
    # Warnings repeat the URLs the template used, never the server's own paths.
    assert not [w for w in rendered.warnings if str(ASSETS_DIR.parent.parent) in w]


_ADDRESSES = [
    "http://127.0.0.1:{port}/loopback",
    "http://localhost:{port}/name",
    "http://[::ffff:127.0.0.1]:{port}/mapped",
    "http://2130706433:{port}/decimal",
    "http://0x7f000001:{port}/hex",
]


@pytest.mark.parametrize("address", _ADDRESSES)
def test_internal_addresses_are_never_reached(modern_renderer, address, settings):
    settings.PDF_REMOTE_ALLOWED_HOSTS = []
    # About the network, not the script limit: the page's refused requests (an EventSource
    # retries) settled past the 5 s default once, with four test processes on two cores.
    settings.PDF_TEMPLATE_TIMEOUT_MS = 30_000
    with _server() as (port, hits):
        url = address.format(port=port)
        ws = url.replace("http://", "ws://")
        html = (
            f'<p>BODY</p><img src="{url}/img"><link rel="stylesheet" href="{url}/css">'
            f'<iframe src="{url}/frame"></iframe><div style="background: url({url}/bg)">x</div>'
            f"<script>fetch('{url}/fetch').catch(() => 0);"
            f"try {{ var x = new XMLHttpRequest(); x.open('GET', '{url}/xhr'); x.send(); }}"
            " catch (e) {}"
            f"try {{ new WebSocket('{ws}/ws'); }} catch (e) {{}}"
            f"try {{ new EventSource('{url}/sse'); }} catch (e) {{}}"
            f"try {{ navigator.sendBeacon('{url}/beacon', 'x'); }} catch (e) {{}}"
            f"var i = new Image(); i.src = '{url}/script-img';</script>"
        )
        rendered = render(modern_renderer, html, css=f"@import url({url}/import);", engine="raw")
        time.sleep(0.3)  # anything sent late would arrive by now
    text = pdf_text(rendered.content)[1]
    assert "BODY" in text
    assert "INTERNAL-ANSWER" not in text
    assert hits == []
    assert rendered.warnings


@pytest.mark.process  # renders in Chromium
def test_navigation_away_is_refused(settings):
    settings.PDF_REMOTE_ALLOWED_HOSTS = []
    with _server() as (port, hits):
        rendered = render(
            "chromium",
            f"<p>BODY</p><script>location.href = 'http://127.0.0.1:{port}/away';</script>",
            engine="raw",
        )
    assert "BODY" in pdf_text(rendered.content)[1]
    assert hits == []
    assert any("may not navigate" in w for w in rendered.warnings)


@pytest.mark.parametrize("module", [weasyprint, chromium], ids=["weasyprint", "chromium"])
def test_a_redirect_to_a_refused_destination_is_not_followed(module):
    """The first host is allowed (the policy is widened to loopback so a local server can
    stand in for a public one) and it redirects to a host outside the allowlist, as a 302
    to 169.254.169.254 would. For Chromium the fetch is the policy's, never the browser's."""
    with (
        _server() as (target_port, target_hits),
        _server(f"http://localhost:{target_port}/meta") as (port, redirect_hits),
    ):
        policy = dataclasses.replace(
            resource_policy(),
            allow_remote=True,
            allow_private_networks=True,
            allowed_hosts=frozenset({"127.0.0.1"}),
        )
        rendered = module.layout(
            LayoutJob(
                body_html=f'<p>BODY</p><img src="http://127.0.0.1:{port}/r.png">',
                css="",
                options=parse_options({}),
                limits=DEFAULT_LIMITS,
            ),
            bounds=LayoutBounds(
                policy=policy, max_render_seconds=30, max_pages=10, max_html_bytes=1_000_000
            ),
        )
    assert redirect_hits == ["/r.png"]
    assert target_hits == []
    assert any("not in the allowed hosts" in w for w in rendered.warnings), rendered.warnings


def test_scripts_do_not_run_in_weasyprint():
    rendered = render(
        "weasyprint",
        "<p id='x'>STATIC</p><script>document.getElementById('x').textContent = 'RAN'</script>",
        engine="raw",
    )
    text = pdf_text(rendered.content)[1]
    assert "STATIC" in text
    assert "RAN" not in text


@pytest.mark.process  # renders in Chromium
def test_scripts_run_in_chromium():
    rendered = render(
        "chromium",
        "<p id='x'>STATIC</p><script>document.getElementById('x').textContent = 'DRAWN'</script>",
        engine="raw",
    )
    assert "DRAWN" in pdf_text(rendered.content)[1]


@pytest.mark.process  # renders in Chromium
@pytest.mark.parametrize(
    "script",
    [
        "while (true) {}",
        "setTimeout(function () { while (true) {} }, 10);",
        "window.onload = function () { while (true) {} };",
    ],
    ids=["inline", "timer", "onload"],
)
def test_an_endless_script_is_stopped_by_the_time_limit(script, settings):
    default_limit = settings.PDF_TEMPLATE_TIMEOUT_MS
    settings.PDF_TEMPLATE_TIMEOUT_MS = 1000
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="scripts did not finish within 1 s"):
        render("chromium", f"<p>x</p><script>{script}</script>", engine="raw")
    assert time.monotonic() - started < 15
    # The browser still serves the next job, which has the usual limit: held to the
    # hostile job's 1 s, a script-less page after the loop missed it once with four test
    # processes saturating two cores.
    settings.PDF_TEMPLATE_TIMEOUT_MS = default_limit
    assert "after" in pdf_text(render("chromium", "<p>after</p>").content)[1]


@pytest.mark.process  # renders in Chromium
def test_endless_memory_is_stopped(settings):
    settings.PDF_TEMPLATE_TIMEOUT_MS = 3000
    with pytest.raises(LimitExceeded):
        render(
            "chromium",
            "<script>var a = []; while (true) { a.push(new Array(1e6).fill(1)); }</script>",
            engine="raw",
        )
    assert "after" in pdf_text(render("chromium", "<p>after</p>").content)[1]


@pytest.mark.parametrize(
    "css",
    [
        "@page { size: 5000in 5000in; }",
        "@page { size: 5000in 5000in !important; }",
        "@page huge { size: 9000in 9000in; } body { page: huge; }",
    ],
)
def test_a_huge_page_size_is_not_laid_out(modern_renderer, css):
    try:
        rendered = render(modern_renderer, "<p>x</p>", css=css, page_size="A4")
    except LimitExceeded as exc:
        refused = str(exc)
    else:
        refused = ""
    if refused:
        assert "larger than the largest page size" in refused
        return
    box = PdfReader(io.BytesIO(rendered.content)).pages[0].mediabox
    assert float(box.width) < 600
    assert float(box.height) < 850
