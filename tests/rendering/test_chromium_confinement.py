"""The browser's confinement, read from the processes themselves: no secret in any
browser process's environment, another user than root, the sandbox on (seccomp), a
memory ceiling that Web Workers and ArrayBuffers do not escape, no WebRTC UDP and no
request from a worker or SharedWorker reaching anything."""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rendering.options import parse_options
from rendering.renderers import chromium_browser
from rendering.renderers.chromium_browser import ChromiumService, _process_tree
from rendering.renderers.chromium_confinement import Confinement
from reports.limits import limits_from_settings
from tests.rendering.conftest import CHROMIUM
from tests.rendering.probe_server import recording_server

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="apt-get install chromium"),
]
SECRETS = {
    "DJANGO_SECRET_KEY": "s3cret-django",
    "DATABASE_URL": "postgres://u:pw@db/x",
    "AWS_SECRET_ACCESS_KEY": "aws-s3cret",
    "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE",
    "REDIS_URL": "redis://:pw@redis:6379/0",
}


def _service(**confinement: object) -> ChromiumService:
    return ChromiumService(
        executable=CHROMIUM, max_jobs=10, memory_mb=128, confinement=Confinement(**confinement)
    )


@pytest.fixture
def confined(monkeypatch) -> Iterator[ChromiumService]:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    service = _service(memory_mb=512)
    yield service
    service.close()


def _processes(service: ChromiumService) -> list[int]:
    marker = next(iter(service._markers.values()))
    return _process_tree(marker)


def _while_a_page_is_open(service: ChromiumService) -> dict[int, dict[str, bytes]]:
    """Each browser process's environ, status and cmdline, read while a job's page is
    open (its renderer exists only then)."""

    async def job(context) -> dict[int, dict[str, bytes]]:
        await _evaluate(context, "() => 1")
        found = {}
        for pid in _processes(service):
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # exited
                found[pid] = {
                    name: Path(f"/proc/{pid}/{name}").read_bytes()
                    for name in ("environ", "status", "cmdline")
                }
        return found

    return service.run(job, timeout=60)


async def _evaluate(context, script: str, arg: object = None) -> object:
    page = context.pages[0]
    await page.set_content("<p>x</p>")
    return await page.evaluate(script, arg)


def test_no_browser_process_sees_the_workers_secrets(confined):
    processes = _while_a_page_is_open(confined)
    assert any(b"--type=renderer" in seen["cmdline"] for seen in processes.values())
    for pid, seen in processes.items():
        environ = seen["environ"].decode(errors="replace")
        for name, value in SECRETS.items():
            assert name not in environ, (pid, name)
            assert value not in environ, (pid, name)
    # The browser's own environment, whole (its children reuse the area for their titles):
    # what the launcher passes and what Debian's wrapper adds (its /etc/chromium.d sets
    # the distribution's public API keys), nothing of the worker's.
    browser = next(
        seen for seen in processes.values() if b"\0--report-service-browser=" in seen["cmdline"]
    )
    names = {item.split("=", 1)[0] for item in browser["environ"].decode().split("\0") if item}
    assert names <= {
        *("PATH", "HOME", "TMPDIR", "LANG", "TZ", "FONTCONFIG_FILE", "CHROMIUM_FLAGS"),
        *("GOOGLE_API_KEY", "GOOGLE_DEFAULT_CLIENT_ID", "GOOGLE_DEFAULT_CLIENT_SECRET"),
        *("CHROME_WRAPPER", "CHROME_DESKTOP", "CHROME_VERSION_EXTRA", "PWD", "SHLVL", "_"),
    }, names


def _status(raw: bytes) -> dict[str, str]:
    lines = raw.decode().splitlines()
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


@pytest.mark.skipif(os.geteuid() != 0, reason="the worker already runs as a user of its own")
def test_a_root_worker_starts_the_browser_as_nobody_with_its_sandbox(confined):
    processes = _while_a_page_is_open(confined)
    nobody = pwd.getpwnam("nobody").pw_uid
    statuses = {pid: _status(seen["status"]) for pid, seen in processes.items()}
    assert {status["Uid"].split()[0] for status in statuses.values()} == {str(nobody)}
    assert confined.sandboxed
    # Renderers run under Chromium's seccomp-bpf sandbox (mode 2: filter).
    renderers = [
        statuses[pid] for pid, seen in processes.items() if b"--type=renderer" in seen["cmdline"]
    ]
    assert renderers
    assert all(status["Seccomp"].strip() == "2" for status in renderers)


@pytest.mark.skipif(os.geteuid() != 0, reason="the worker already runs as a user of its own")
def test_the_browser_user_reads_the_bundled_fonts_of_a_private_checkout(tmp_path, monkeypatch):
    """A checkout in a directory only root may enter (pytest's own tmp_path is one) still
    gives the browser, running as nobody, the bundled fonts, not the system's fallbacks."""
    checkout = tmp_path / "checkout" / "fonts"
    shutil.copytree(chromium_browser.FONTS_DIR, checkout)
    tmp_path.chmod(0o700)
    monkeypatch.setattr(chromium_browser, "FONTS_DIR", checkout)
    config = chromium_browser.fontconfig_file.__wrapped__()
    directories = re.findall(r"<dir>(.*?)</dir>", config.read_text(encoding="utf-8"))
    fonts = [str(path) for directory in directories for path in Path(directory).glob("*.ttf")]
    assert {Path(font).name for font in fonts} >= {"ReportSans.ttf", "ReportCJK.ttf"}
    nobody = pwd.getpwnam("nobody")
    read = subprocess.run(
        [
            "setpriv",
            f"--reuid={nobody.pw_uid}",
            f"--regid={nobody.pw_gid}",
            "--clear-groups",
            "sh",
            "-c",
            'cat "$@" > /dev/null',
            "sh",
            *fonts,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert read.returncode == 0, read.stderr


_WORKER_EATS = """async (megabytes) => {
  const source = `let kept = [], got = 0;
    try { while (got < ${megabytes}) { kept.push(new Uint8Array(64 << 20).fill(1)); got += 64; }
          postMessage("allocated " + got); }
    catch (e) { postMessage("refused at " + got + ": " + e.name); }`;
  const worker = new Worker(URL.createObjectURL(new Blob([source])));
  return await new Promise(done => { worker.onmessage = e => done(e.data);
                                     worker.onerror = e => done("error " + e.message); });
}"""


def test_a_web_worker_cannot_allocate_past_the_process_ceiling(monkeypatch):
    """ArrayBuffers live outside V8's heap limit; the data-segment ceiling still holds
    them, in a worker as on the page. Without it the same worker takes what it asks."""
    free = _service(memory_mb=0)
    try:
        assert free.run(lambda c: _evaluate(c, _WORKER_EATS, 768), timeout=60) == "allocated 768"
    finally:
        free.close()
    ceiling = _service(memory_mb=512)
    try:
        answer = ceiling.run(lambda c: _evaluate(c, _WORKER_EATS, 768), timeout=60)
    finally:
        ceiling.close()
    assert answer.startswith("refused at "), answer
    assert int(answer.split()[2].rstrip(":")) < 512


_RTC = """async (port) => {
  const pc = new RTCPeerConnection({iceServers: [{urls: "stun:127.0.0.1:" + port}]});
  const found = [];
  pc.onicecandidate = e => { if (e.candidate) found.push(e.candidate.candidate); };
  pc.createDataChannel("x");
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise(done => setTimeout(done, 2500));
  return found;
}"""


def test_webrtc_sends_no_udp_even_to_an_ip_literal(confined):
    """No resolver rule covers a STUN server given as an IP literal, nor ICE's own host
    candidates: non-proxied UDP is off, so nothing is gathered and nothing is sent."""
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.settimeout(0.2)
    port = receiver.getsockname()[1]
    packets: list[bytes] = []
    stop = threading.Event()

    def listen() -> None:
        while not stop.is_set():
            try:
                packets.append(receiver.recv(2048))
            except TimeoutError:
                continue

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    try:
        candidates = confined.run(lambda c: _evaluate(c, _RTC, port), timeout=60)
        stop.wait(0.5)
    finally:
        stop.set()
        listener.join(timeout=2)
        receiver.close()
    assert (candidates, packets) == ([], [])


_WORKER_FETCHES = """async (urls) => {
  const source = `onconnect = e => { const port = e.ports[0];
      port.onmessage = async m => { const seen = [];
        for (const url of m.data) { try { await fetch(url); seen.push("reached " + url); }
                                    catch (err) { seen.push("refused"); } }
        port.postMessage(seen); }; };
    onmessage = async m => { const seen = [];
      for (const url of m.data) { try { await fetch(url); seen.push("reached " + url); }
                                  catch (err) { seen.push("refused"); } }
      postMessage(seen); };`;
  const blob = URL.createObjectURL(new Blob([source]));
  const shared = new SharedWorker(blob);
  const dedicated = new Worker(blob);
  const ask = (target, port) => new Promise(done => {
    port.onmessage = e => done(e.data); port.postMessage(urls); });
  shared.port.start();
  return [await ask(shared, shared.port), await ask(dedicated, dedicated)];
}"""


def test_workers_and_shared_workers_reach_nothing(confined):
    """Requests of a Web Worker and a SharedWorker, behind the renderer's own request
    interception (which may not see a SharedWorker's): neither reaches a loopback server
    by IP literal nor a host by name."""
    from rendering.renderers import chromium

    with recording_server(body=b"secret", content_type="text/plain") as (port, hits):
        urls = [f"http://127.0.0.1:{port}/by-ip", f"http://localhost:{port}/by-name"]
        job = chromium._Job(
            document="<p>x</p>",
            options=parse_options({}),
            policy=chromium.LayoutBounds.from_limits(limits_from_settings()).policy,
            settings=chromium.ChromiumSettings(),
            deadline_seconds=30,
            page_ranges="1",
            toc=False,
        )

        async def probe(context) -> object:
            await context.route("**/*", lambda route: chromium._route(job, route))
            page = context.pages[0]
            await page.goto(f"{chromium.ORIGIN}/")
            return await page.evaluate(_WORKER_FETCHES, urls)

        answers = confined.run(probe, timeout=60)
    assert hits == []
    assert answers == [["refused", "refused"], ["refused", "refused"]]
