"""One warm headless LibreOffice per worker process, started on first use, killed and
replaced when a conversion runs past its time limit.

The worker's Python has no `uno`; the system Python does (python3-uno), so a small bridge
script (rendering.office_bridge) runs under it, starts soffice as its own child and
converts what this process sends it, a JSON line each way. Both run in a process group of
their own (killed as one) and, where the system allows a network namespace, in one
without a network: a document's links cannot be fetched even if LibreOffice tried. The
profile (its own directory) never runs macros and never updates links.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import signal
import subprocess
import threading
import time
import uuid
from functools import cache
from pathlib import Path
from typing import Any

from rendering.error_codes import ErrorCode
from rendering.errors import RenderError

SYSTEM_PYTHON = "/usr/bin/python3"
INSTALL_HINT = (
    "apt-get install libreoffice-writer-nogui libreoffice-calc-nogui "
    "libreoffice-impress-nogui python3-uno"
)
_BRIDGE = Path(__file__).with_name("office_bridge.py")
_START_SECONDS = 60.0
# Macro security "very high" with macros disabled outright; links and images of a document
# never updated or loaded from elsewhere (Writer/Calc 2: never; Common: block untrusted
# referer links); no recovery data, no first-start dialogs.
_REGISTRY = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
 xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
{items}
</oor:items>
"""
_SETTINGS = (
    ("/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "int", "3"),
    (
        "/org.openoffice.Office.Common/Security/Scripting",
        "DisableMacrosExecution",
        "boolean",
        "true",
    ),
    (
        "/org.openoffice.Office.Common/Security/Scripting",
        "BlockUntrustedRefererLinks",
        "boolean",
        "true",
    ),
    ("/org.openoffice.Office.Writer/Content/Update", "Link", "int", "2"),
    ("/org.openoffice.Office.Calc/Content/Update", "Link", "int", "2"),
    ("/org.openoffice.Office.Common/Save/Document", "CreateBackup", "boolean", "false"),
    ("/org.openoffice.Office.Recovery/AutoSave", "Enabled", "boolean", "false"),
    ("/org.openoffice.Office.Recovery/RecoveryInfo", "Enabled", "boolean", "false"),
    ("/org.openoffice.Office.Common/Misc", "UseLocking", "boolean", "false"),
)


class OfficeUnavailable(RenderError):
    """No LibreOffice on this worker: the job fails saying what to install."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"This worker cannot convert office files: {detail}. Install LibreOffice on the "
            f"workers ({INSTALL_HINT}) or use an image built with OFFICE=1.",
            code=ErrorCode.RENDER_ERROR,
            http_status=503,
        )


class OfficeTimeout(RenderError):
    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"LibreOffice did not finish converting within {seconds:g} s; it was stopped. "
            "Send a smaller file or split it.",
            code=ErrorCode.TIMEOUT,
            http_status=422,
        )


def office_missing(executable: str) -> str:
    """What is missing for office conversions here ("" when nothing is)."""
    if shutil.which(executable) is None:
        return f"no LibreOffice ({executable!r} not found)"
    if not Path(SYSTEM_PYTHON).is_file():
        return f"no {SYSTEM_PYTHON} for LibreOffice's UNO bridge"
    found = subprocess.run(  # noqa: S603 - fixed arguments
        [SYSTEM_PYTHON, "-c", "import uno"], capture_output=True, check=False, timeout=30
    )
    return "" if found.returncode == 0 else "no python3-uno for the system Python"


@cache
def _netns_prefix() -> tuple[str, ...]:
    """`unshare` into a new network namespace when this system allows one (as root, or
    with user namespaces); nothing otherwise (the profile still blocks links)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    for prefix in ((unshare, "--net"), (unshare, "--map-root-user", "--net")):
        done = subprocess.run([*prefix, "true"], capture_output=True, check=False)  # noqa: S603
        if done.returncode == 0:
            return prefix
    return ()


def profile_write(profile: Path) -> None:
    user = profile / "user"
    user.mkdir(parents=True, exist_ok=True)
    items = "\n".join(
        f'<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse">'
        f"<value>{value}</value></prop></item>"
        for path, name, _kind, value in _SETTINGS
    )
    (user / "registrymodifications.xcu").write_text(_REGISTRY.format(items=items))


def profiles_sweep(profile_dir: Path) -> None:
    """Remove the profiles of worker processes that are gone (recycled pool children
    would otherwise leave one each behind)."""
    for profile in profile_dir.glob("profile-*"):
        pid = profile.name.removeprefix("profile-")
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(profile, ignore_errors=True)
        except PermissionError:
            pass  # alive, another user's


class OfficeService:
    def __init__(self, *, executable: str, profile_dir: Path) -> None:
        self.executable = executable
        self.profile_dir = profile_dir
        self._process: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _start(self) -> subprocess.Popen[str]:
        if missing := office_missing(self.executable):
            raise OfficeUnavailable(missing)
        profiles_sweep(self.profile_dir)
        profile = self.profile_dir / f"profile-{os.getpid()}"
        profile_write(profile)
        pipe = f"pdfreports-office-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        soffice = [
            shutil.which(self.executable) or self.executable,
            "--headless",
            "--invisible",
            "--nologo",
            "--norestore",
            "--nodefault",
            "--nolockcheck",
            f"-env:UserInstallation={profile.resolve().as_uri()}",
            f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext",
        ]
        command = [*_netns_prefix(), SYSTEM_PYTHON, str(_BRIDGE), pipe, str(_START_SECONDS)]
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(profile), "LANG": "C.UTF-8"}
        process = subprocess.Popen(  # noqa: S603 - our own arguments
            [*command, *soffice],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,  # one process group: the bridge and soffice die together
        )
        self._process = process
        answer = self._answer(process, _START_SECONDS)
        if answer is None or not answer.get("ready"):
            self.kill()
            # Installed but not started (memory, a full disk): another attempt may start it.
            raise OSError(f"LibreOffice did not start within {_START_SECONDS:g} s")
        return process

    def _answer(self, process: subprocess.Popen[str], seconds: float) -> dict[str, Any] | None:
        if process.stdout is None:
            return None
        until = time.monotonic() + max(seconds, 0)
        # In slices: a cancel (rendering.deadline, raised at the next bytecode) lands within
        # half a second instead of after the whole wait.
        while True:
            left = until - time.monotonic()
            if select.select([process.stdout], [], [], min(0.5, max(left, 0)))[0]:
                break
            if left <= 0:
                return None
        line = process.stdout.readline()
        if not line:
            return None
        answer: dict[str, Any] = json.loads(line)
        return answer

    def start(self) -> None:
        with self._lock:
            if not self.running:
                self._start()

    def convert(self, request: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        """One conversion in the warm LibreOffice (started when none runs); past `timeout`
        it is killed (the next conversion starts a new one) and OfficeTimeout raised."""
        with self._lock:
            process = self._process if self._process is not None and self.running else None
            process = process or self._start()
            if process.stdin is None:
                raise OSError("LibreOffice's bridge has no input")
            began = time.monotonic()
            try:
                process.stdin.write(json.dumps(request) + "\n")
                process.stdin.flush()
                answer = self._answer(process, timeout)
            except BaseException:
                # Stopped while LibreOffice works (a cancel, Celery's soft time limit): its
                # answer would come to the next conversion, so this LibreOffice goes.
                self.kill()
                raise
            if answer is None:
                self.kill()
                if time.monotonic() - began >= timeout:
                    raise OfficeTimeout(timeout)
                raise OSError("LibreOffice stopped during a conversion")  # transient: retried
            if answer.get("lost"):
                self.kill()
                raise OSError("LibreOffice stopped during a conversion")  # transient: retried
            return answer

    def pids(self) -> list[int]:
        return [self._process.pid] if self.running and self._process else []

    def kill(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
        # Nothing in a profile outlives its LibreOffice (a new one starts as fast).
        shutil.rmtree(self.profile_dir / f"profile-{os.getpid()}", ignore_errors=True)


_lock = threading.Lock()
_service: tuple[int, OfficeService] | None = None


def office_service(*, executable: str, profile_dir: Path) -> OfficeService:
    """This process's LibreOffice, made on first use (a forked worker child makes its own);
    another command or profile directory replaces it."""
    global _service
    with _lock:
        current = _service[1] if _service is not None and _service[0] == os.getpid() else None
        if current is not None and (current.executable, current.profile_dir) == (
            executable,
            profile_dir,
        ):
            return current
        if current is not None:
            current.kill()
        service = OfficeService(executable=executable, profile_dir=profile_dir)
        atexit.register(service.kill)
        _service = (os.getpid(), service)
        return service
