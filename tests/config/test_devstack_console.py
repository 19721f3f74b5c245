"""`make run` as a new user meets it: `python -m config.devstack` in a subprocess, on the
embedded Redis and SQLite, as on a fresh clone. A taken port is one line naming PORT; the
console ends with a short summary while the processes log to var/log/; mails are files
with one log line and link to the port served; an idle follower logs no TimeoutError.
Ctrl-C stops it all in under 5 s: that test stops the module's stack, so it runs after the
others whatever their order (`last_in_module`, tests/conftest.py); one `make run` start
serves them all (a second stack of its own cost ~50 s of the harness group's time)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil
import pytest
import websockets

from config.devconsole import port_taken
from tests.mail_files import body_of, mails_in
from tests.markers import HARNESS_GROUP
from tests.processes import BASE_DIR, free_port

# One make run for the module (its fixture), not one per test process, and never beside
# another harness (tests/markers.py).
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300), pytest.mark.xdist_group(HARNESS_GROUP)]

# What the test run sets that a person's `make run` would not have.
_NOT_FROM_A_SHELL = (
    "DATABASE_URL",
    "REDIS_URL",
    "VAR_DIR",
    "DJANGO_SETTINGS_MODULE",
    "PUBLIC_BASE_URL",
    "EMAIL_BACKEND",
    "EMAIL_FILE_PATH",
    "PROMETHEUS_MULTIPROC_DIR",
    "VERBOSE",
    "HOST",
    "PORT",
    "FLOWER_PORT",
)


LOCAL = "config.settings.local"  # make run's settings


def _shell_env(var_dir: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _NOT_FROM_A_SHELL}
    return {**env, "VAR_DIR": str(var_dir), "PORT": str(port), "PYTHONUNBUFFERED": "1"}


@dataclass
class Devstack:
    process: subprocess.Popen[bytes]
    console: Path
    var_dir: Path
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.console.read_text(errors="replace")

    def log(self, name: str) -> str:
        return (self.var_dir / "log" / f"{name}.log").read_text(errors="replace")

    def api_key(self) -> str:
        return (self.var_dir / "demo-api-key").read_text().strip()

    def manage(self, *args: str) -> str:
        """manage.py on make run's own database, as a person in another terminal runs it."""
        env = {**_shell_env(self.var_dir, self.port), "DJANGO_SETTINGS_MODULE": LOCAL}
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return done.stdout


@pytest.fixture(scope="module")
def devstack(tmp_path_factory) -> Iterator[Devstack]:
    var_dir = tmp_path_factory.mktemp("devstack-var")
    console = var_dir.parent / "devstack-console.txt"
    # The helper's own PORT when it is free (PORT=8302 here), as `PORT=8302 make run`.
    given = os.environ.get("PORT", "")
    port = (
        int(given) if given.isdigit() and not port_taken("127.0.0.1", int(given)) else free_port()
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "config.devstack"],
        cwd=BASE_DIR,
        env=_shell_env(var_dir, port),
        stdout=console.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    stack = Devstack(process=process, console=console, var_dir=var_dir, port=port)
    deadline = time.monotonic() + 180
    while "Stop" not in stack.output():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"make run did not print its summary:\n{stack.output()[-4000:]}")
        time.sleep(0.5)
    yield stack
    if process.poll() is None:
        # Ctrl-C, as a person stops it: make run then stops its embedded Redis too, which
        # lives in a process group of its own and would outlive a SIGKILL of this one.
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_a_taken_port_says_which_variable_to_set(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "config.devstack"],
            cwd=BASE_DIR,
            env=_shell_env(tmp_path / "var", port),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 2
    assert time.monotonic() - started < 15  # refused before Redis, migrations or workers
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"devstack: port {port} on 127.0.0.1 is already in use")
    assert re.search(r"set PORT to a free port \(e\.g\. PORT=\d+ make run\)$", line)
    assert result.stdout == ""
    assert not (tmp_path / "var" / "redis").exists()


def test_the_summary_comes_last_and_short(devstack):
    lines = devstack.output().rstrip().splitlines()
    assert len(lines) <= 20, "\n".join(lines)
    assert lines[-1] == "  Stop     Ctrl-C"
    text = "\n".join(lines)
    assert f"  Open     {devstack.url}/" in text
    assert "  Sign in  demo / demo" in text
    assert f"  API key  {devstack.api_key()} (in " in text
    assert f"{devstack.var_dir / 'log'}/{{web,worker,callbacks,mail,previews,beat}}.log" in text
    assert "VERBOSE=1" in text
    # No Celery banner, task list or server chatter on the console; no colour in a file.
    for noise in ("[tasks]", "-------------- ", "ready.", "Uvicorn running", "\033["):
        assert noise not in text


def test_each_process_logs_to_its_file_under_var_log(devstack):
    assert f"Uvicorn running on {devstack.url}" in devstack.log("web")
    for worker in ("worker", "callbacks", "mail", "previews"):
        assert re.search(r"@\S+ ready\.", devstack.log(worker)), worker
    assert "[tasks]" in devstack.log("worker")  # the banner is kept, in its file
    assert "beat: Starting" in devstack.log("beat")
    assert "Demo API key:" in devstack.log("setup")


def test_an_unknown_api_path_answers_json_with_debug_on(devstack):
    response = httpx.get(f"{devstack.url}/api/v1/no-such-thing", timeout=10)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_mail_links_point_to_the_port_served_and_the_console_stays_quiet(devstack):
    # An API key's jobs mail its owner only when asked for (the account page's choice).
    devstack.manage(
        "shell",
        "-c",
        "from django.contrib.auth.models import User;"
        "from accounts.notifications import notification_preferences_set as chosen;"
        "chosen(user=User.objects.get(username='demo'), email_job_finished=True,"
        " browser_job_finished=True, email_api_jobs=True)",
    )
    with httpx.Client(base_url=devstack.url, headers={"X-API-Key": devstack.api_key()}) as api:
        submitted = api.post(
            "/api/v1/generate-pdf-async",
            json={"html_template": "<h1>Hello {{name}}</h1>", "data": {"name": "Ada"}},
            timeout=30,
        )
    assert submitted.status_code == 202, submitted.text
    mail_dir = devstack.var_dir / "mail"
    deadline = time.monotonic() + 90
    while not (mails := mails_in(mail_dir, to="demo@localhost")):
        assert time.monotonic() < deadline, devstack.log("mail")[-3000:]
        time.sleep(0.5)
    body = body_of(mails[0])
    links = re.findall(r"https?://[^\s\"'<>]+", body)
    assert links
    assert all(link.startswith(f"{devstack.url}/") for link in links), links
    assert submitted.json()["job_id"] in body
    said = [line for line in devstack.log("mail").splitlines() if "mail to " in line]
    assert len(said) == 1
    assert "demo@localhost" in said[0]
    assert str(mail_dir) in said[0]
    assert "Hello" not in devstack.output()
    assert "Subject:" not in devstack.output()


def test_an_idle_follower_logs_no_timeout_traceback(devstack):
    async def follow_idle() -> list[dict]:
        seen = []
        url = f"ws://127.0.0.1:{devstack.port}/ws/jobs/"
        headers = {"X-API-Key": devstack.api_key()}
        async with websockets.connect(url, additional_headers=headers) as socket_:
            try:
                while True:  # past the channel layer's 5 s block, twice
                    seen.append(json.loads(await asyncio.wait_for(socket_.recv(), 12)))
            except TimeoutError:
                return seen

    asyncio.run(follow_idle())
    web = devstack.log("web")
    assert "WebSocket /ws/jobs/" in web
    assert "Traceback" not in web
    assert "TimeoutError" not in web


def _thumbnails_warmed(devstack: Devstack) -> str:
    """The start's thumbnails log once it names five samples (within 180 s)."""
    log = devstack.var_dir / "log" / "thumbnails.log"
    deadline = time.monotonic() + 180
    while log.read_text().count("Thumbnail of ") < 5:
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(1)
    return log.read_text()


def test_the_gallery_thumbnails_are_warmed_after_the_start(devstack):
    assert "Thumbnail of invoice: " in _thumbnails_warmed(devstack)
    # In the report store (var/media/ under make run), beside the PDFs.
    pictures = [p for p in devstack.var_dir.rglob("*.png") if p.parent.name == "thumbnails"]
    assert len(pictures) >= 4  # the 50-page
    # sample may miss the 10 s preview limit on a loaded machine; it renders when asked


@pytest.mark.last_in_module  # it stops the module's stack
def test_ctrl_c_stops_everything_in_under_5_seconds(devstack):
    # After the start's work, as a person's Ctrl-C comes: the gallery's thumbnails warmed
    # (as the thumbnails test above waits for them), then idle.
    _thumbnails_warmed(devstack)
    # Idle first: no process has logged anything for 3 s (a preview that outlived its
    # caller's time limit may still be rendering).
    logs = sorted((devstack.var_dir / "log").glob("*.log"))
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if time.time() - max(log.stat().st_mtime for log in logs) > 3:
            break
        time.sleep(0.5)
    children = psutil.Process(devstack.process.pid).children(recursive=True)
    assert len(children) >= 5  # web, three workers (and their pool children), beat, Redis
    started = time.monotonic()
    os.killpg(devstack.process.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
    devstack.process.wait(timeout=30)
    took = time.monotonic() - started
    assert devstack.process.returncode == 0
    assert took < 5, devstack.output()[-500:]
    assert re.search(r"devstack: stopped in \d+\.\d s$", devstack.output().rstrip())
    assert "killed" not in devstack.output().splitlines()[-1]
    alive = [child for child in children if child.is_running() and child.status() != "zombie"]
    assert alive == []
