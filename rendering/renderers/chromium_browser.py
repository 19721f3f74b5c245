"""One warm headless Chromium per worker process (Debian's `chromium`, driven by Playwright
on a thread of its own), reused by every job through a fresh isolated context, relaunched
after a crash and after a number of jobs. Playwright's event loop lives on that thread so
the caller's thread (Celery, Django, mini-racer's timeouts) never sees a running loop."""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import shutil
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from rendering.fonts import FONTS_DIR
from rendering.renderers.chromium_confinement import Confinement, browser_launch

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Playwright

# Playwright is imported when a browser is launched: the worker's health checks import this
# module in every process (the web too, through the signal handlers), and Playwright costs
# each start ~0.1 s. A worker imports it before its pool forks (rendering.preload).

logger = logging.getLogger(__name__)
T = TypeVar("T")
DEFAULT_EXECUTABLE = Path("/usr/bin/chromium")
INSTALL_HINT = "install Debian's chromium package (apt-get install chromium)"


class BrowserUnavailable(Exception):
    """Chromium is missing, did not start or crashed: transient, the job is retried."""


def launch_args(*, memory_mb: int) -> list[str]:
    """The browser's switches; `--no-sandbox` is added by Playwright only when the
    sandbox cannot run (chromium_confinement)."""
    return [
        "--headless",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-dev-shm-usage",
        # No host resolves, IP literals included: even a request that escaped the
        # interception (a WebSocket, a prefetch) cannot reach any address.
        "--host-resolver-rules=MAP * ~NOTFOUND",
        # WebRTC would send UDP to IP literals (STUN/TURN, ICE candidates), which no
        # resolver rule covers: only through a proxy, and there is none.
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        f"--js-flags=--max-old-space-size={memory_mb}",
    ]


def _process_tree(marker: str) -> list[int]:
    """The browser process whose command line carries `marker`, and its descendants
    (renderers, GPU, utility processes), read from /proc."""
    children: dict[int, list[int]] = {}
    roots = []
    for entry in Path("/proc").glob("[0-9]*"):
        with suppress(OSError, ValueError, IndexError):
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
            if marker.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                roots.append(int(entry.name))
    found, queue = [], roots
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue.extend(children.get(pid, []))
    return found


def _launch_failure(text: str) -> str:
    """Playwright's first line, and the browser's own first complaint from the logs it
    appends (`[pid=N][err] ...`: a missing shared library, a bad flag)."""
    lines = text.splitlines()
    first = lines[0] if lines else "no reason given"
    for line in lines:
        if "][err] " in line:
            return f"{first}: {line.split('][err] ', 1)[1].strip()}"
    return first


def _remove_if_ours(directory: Path, creator: int) -> None:
    # A forked child inherits the parent's atexit list; only the process that made it removes it.
    if os.getpid() == creator:
        shutil.rmtree(directory, ignore_errors=True)


@cache
def fontconfig_file() -> Path:
    """A fontconfig configuration of the system's fonts plus the bundled ones: Chromium
    then has them as installed fonts, so no job loads 3.5 MB of fonts through the page,
    and a glyph that the font a template names lacks falls back to them as system fonts
    do, whatever the template's font-family list says."""
    directory = Path(tempfile.mkdtemp(prefix="chromium-fonts-"))
    atexit.register(_remove_if_ours, directory, os.getpid())
    # Read by the browser's own user (chromium_confinement); its cache by anyone, like /tmp.
    directory.chmod(0o755)
    cache_dir = directory / "cache"
    cache_dir.mkdir(mode=0o1777)
    cache_dir.chmod(0o1777)
    # A copy, readable by all: the browser's user cannot read the checkout's own files when
    # the checkout lies in a private directory (a 0700 home, `mktemp -d`), and Chromium then
    # silently falls back to whatever fonts the system has.
    fonts = directory / "fonts"
    shutil.copytree(FONTS_DIR, fonts, copy_function=shutil.copyfile)
    for path in (fonts, *fonts.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    config = directory / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
        f"  <dir>{fonts}</dir>\n  <cachedir>{cache_dir}</cachedir>\n"
        "</fontconfig>\n",
        encoding="utf-8",
    )
    return config


ContextSetup = Callable[["BrowserContext"], Awaitable[None]]


class ChromiumService:
    """The browser of this process. `run(job)` runs `job(context)` in a new context that
    has one blank page, and that `context_setup` prepared (the renderer's request
    interception: with the spare context it is made between jobs, not during one; the
    page is opened with the job)."""

    def __init__(
        self,
        *,
        executable: Path,
        max_jobs: int,
        memory_mb: int,
        confinement: Confinement | None = None,
        context_setup: ContextSetup | None = None,
    ) -> None:
        self.context_setup = context_setup
        self.executable = executable
        self.max_jobs = max_jobs
        self.memory_mb = memory_mb
        self.confinement = confinement or Confinement()
        self.sandboxed = False
        self.jobs_since_launch = 0
        self.launches = 0
        self._active = 0
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._markers: dict[Browser, str] = {}
        self._spare: BrowserContext | None = None
        # Spare contexts being made, each with the browser it is made in.
        self._tasks: dict[asyncio.Task[None], Browser] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="chromium-service", daemon=True
        )
        self._thread.start()

    async def _launch(self) -> Browser:
        if not self.executable.exists():
            raise BrowserUnavailable(
                f"Chromium is not installed at {self.executable}: {INSTALL_HINT}."
            )
        if self._playwright is None:
            from playwright.async_api import async_playwright

            self._playwright = await async_playwright().start()
        # Names this browser's process, so a stuck one can be killed with its children.
        # Unique per launch, not per process: two services in one process (the worker's
        # and a test's) would otherwise find, stop and kill each other's browsers.
        marker = f"--report-service-browser={os.getpid()}-{uuid.uuid4().hex}"
        launch = browser_launch(self.executable, self.confinement, fontconfig=fontconfig_file())
        sandboxes = [True, False] if launch.sandbox else [False]
        for sandbox in sandboxes:
            try:
                browser = await self._playwright.chromium.launch(
                    executable_path=str(launch.executable),
                    args=[*launch_args(memory_mb=self.memory_mb), marker],
                    # Only what the browser needs: no DJANGO_SECRET_KEY, DATABASE_URL, AWS_*.
                    env=launch.env,
                    chromium_sandbox=sandbox,
                    handle_sigint=False,
                    handle_sigterm=False,
                    handle_sighup=False,
                )
            except Exception as exc:
                if sandbox:  # no user namespaces here (a container's seccomp profile)
                    logger.warning("Chromium's sandbox cannot run here; starting without it")
                    continue
                raise BrowserUnavailable(
                    f"Chromium did not start: {_launch_failure(str(exc))}"
                ) from None
            self.sandboxed = sandbox
            break
        self.launches += 1
        self.jobs_since_launch = 0
        self._markers[browser] = marker
        return browser

    async def _browser_for_job(self) -> Browser:
        browser = self._browser
        if browser is not None and not browser.is_connected():
            self._forget(browser)  # crashed or killed: start a new one
            browser = None
        if browser is not None and self.jobs_since_launch >= self.max_jobs and self._active == 0:
            # Recycled after max_jobs, whatever it leaked (memory, renderer processes).
            self._browser = None
            self._markers.pop(browser, None)
            await browser.close()
            browser = None
        if browser is None:
            browser = self._browser = await self._launch()
        return browser

    async def _new_context(self, browser: Browser) -> BrowserContext:
        # No page yet: the job opens it (`_run`). A page opened here, ahead, cost a
        # renderer process more a job (4.1 started a job against 3.0, and ~240 ms of CPU
        # a one-page PDF: docs/benchmarks, Chromium part (e)).
        context = await browser.new_context(service_workers="block", accept_downloads=False)
        try:
            if self.context_setup is not None:
                await self.context_setup(context)  # before the page: it is born with it
        except Exception:
            await self._close_context(browser, context)
            raise
        return context

    def _spare_soon(self, browser: Browser) -> None:
        """Start making the next job's context unless one is made or being made."""
        if self._spare is None and not self._tasks and self._browser is browser:
            if browser.is_connected():
                task = asyncio.create_task(self._prepare_spare(browser))
                self._tasks[task] = browser
                task.add_done_callback(lambda done: self._tasks.pop(done, None))

    async def _prepare_spare(self, browser: Browser) -> None:
        # The next job's context, made while this job renders or this process is idle:
        # never used before, so each job still starts from nothing an earlier job touched.
        try:
            spare = await self._new_context(browser)
        except Exception:  # no spare then; the next job makes its own
            return
        if self._spare is None and self._browser is browser and browser.is_connected():
            self._spare = spare
        else:
            await self._close_context(browser, spare)

    async def _context_for_job(self, browser: Browser) -> BrowserContext:
        making = [task for task, made_in in self._tasks.items() if made_in is browser]
        if self._spare is None and making:
            # The spare is on its way: finishing it costs less than a second one beside it.
            await asyncio.wait(making)
        spare, self._spare = self._spare, None
        if spare is not None and spare.browser is browser and browser.is_connected():
            return spare
        return await self._new_context(browser)

    async def _run(self, job: Callable[[BrowserContext], Awaitable[T]]) -> T:
        browser = await self._browser_for_job()
        self.jobs_since_launch += 1
        self._active += 1
        context: BrowserContext | None = None
        try:
            context = await self._context_for_job(browser)
            self._spare_soon(browser)  # on the cores this job leaves idle while it waits
            await context.new_page()
            return await job(context)
        except Exception:
            if not browser.is_connected():
                self._forget(browser)
                raise BrowserUnavailable(
                    "Chromium stopped while rendering; the job will be retried."
                ) from None
            raise
        finally:
            self._active -= 1
            if context is not None and browser.is_connected():
                await self._close_context(browser, context)
            self._spare_soon(browser)  # when the one started with the job failed

    async def _close_context(self, browser: Browser, context: BrowserContext) -> None:
        try:
            await asyncio.wait_for(context.close(), timeout=5)
        except TimeoutError:
            # A renderer stuck in a script can hold its context open; a browser that
            # cannot close one is not trusted with the next job.
            self._forget(browser)
            self.kill(browser)
        except Exception:  # noqa: S110 - the context died with its page; nothing to free
            pass

    def run(self, job: Callable[[BrowserContext], Awaitable[T]], *, timeout: float) -> T:
        """Run `job` in a fresh context on the browser thread; wait at most `timeout` s."""
        future = asyncio.run_coroutine_threadsafe(self._run(job), self._loop)
        ends = time.monotonic() + timeout
        try:
            # In slices: an exception raised into this thread (rendering.deadline's
            # Interrupted, a cancelled job) is delivered between them, not after the render.
            while True:
                try:
                    return future.result(timeout=max(0.0, min(0.2, ends - time.monotonic())))
                except FutureTimeout:
                    if time.monotonic() >= ends:
                        raise
        except FutureTimeout:
            future.cancel()
            # A browser that let a job run past its deadline is not trusted with the next
            # one (a stopped or hung Chromium would otherwise wedge every job after it).
            self.kill()
            raise BrowserUnavailable(
                f"Chromium did not answer within {timeout:g} s; the job will be retried."
            ) from None
        except BaseException:
            # Cancels the task on the browser's loop: its awaits stop and _run closes the
            # job's context (and with it the page and its scripts) at once.
            future.cancel()
            raise

    def browser_pids(self) -> list[int]:
        """The warm browser's processes (its own first), empty when none is running."""
        browser = self._browser
        marker = self._markers.get(browser) if browser is not None else None
        return _process_tree(marker) if marker is not None else []

    def start_browser(self, *, timeout: float) -> None:
        """Launch the warm browser now rather than on the next job (after a wedged one was
        killed, so the replacement is known to work before a job needs it)."""

        async def launch() -> None:
            await self._browser_for_job()

        asyncio.run_coroutine_threadsafe(launch(), self._loop).result(timeout=timeout)

    def ping(self, *, timeout: float) -> bool:
        """Ask the warm browser a CDP question (Browser.getVersion). False when no browser
        is running; a browser that does not answer within `timeout` is killed, so the next
        job starts a new one, and BrowserUnavailable says so."""

        async def ask() -> bool:
            browser = self._browser
            if browser is None or not browser.is_connected():
                return False
            session = await browser.new_browser_cdp_session()
            await session.send("Browser.getVersion")
            await session.detach()
            return True

        pids = self.browser_pids()
        future = asyncio.run_coroutine_threadsafe(ask(), self._loop)
        try:
            return future.result(timeout=timeout)
        except FutureTimeout:
            future.cancel()
            self.kill()
            raise BrowserUnavailable(
                f"Chromium (pid {pids[0] if pids else '?'}) did not answer within {timeout:g} s;"
                " killed, the next job starts a new one."
            ) from None

    def kill(self, browser: Browser | None = None) -> None:
        """Kill the browser's processes (tests use it to prove recovery from a crash)."""
        browser = browser or self._browser
        marker = self._markers.pop(browser, None) if browser is not None else None
        if marker is None:
            return
        for pid in _process_tree(marker):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        # Until Playwright notices the closed pipe the browser still looks connected: drop
        # it on the loop now (before any job queued after this), so no job is sent to it.
        self._loop.call_soon_threadsafe(self._forget, browser)

    def _forget(self, browser: Browser | None) -> None:
        if browser is not None and self._browser is browser:
            self._browser = None
            self._spare = None
        # A spare being made in a killed browser can wait forever: Playwright does not
        # always fail a call in flight when the browser dies (a new context or page asked
        # for just before the kill). The next job must not wait for it, nor be refused a
        # spare because one seems to be on its way.
        for task, made_in in list(self._tasks.items()):
            if made_in is browser:
                task.cancel()
                del self._tasks[task]

    def close(self) -> None:
        async def shutdown() -> None:
            if self._browser is not None and self._browser.is_connected():
                await self._browser.close()
            if self._playwright is not None:
                await self._playwright.stop()
            self._browser = self._playwright = None

        if self._loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(timeout=10)
            except Exception:  # noqa: S110 - exiting anyway
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)


_lock = threading.Lock()
_service: tuple[int, ChromiumService] | None = None


def chromium_service(start: Callable[[], ChromiumService]) -> ChromiumService:
    """This process's service, made by `start` on first use (a forked worker child starts
    its own: a browser and a thread do not survive a fork)."""
    global _service
    with _lock:
        if _service is None or _service[0] != os.getpid():
            service = start()
            atexit.register(service.close)
            _service = (os.getpid(), service)
        return _service[1]


def running_chromium_service() -> ChromiumService | None:
    """This process's service if one was started here, without starting one."""
    with _lock:
        if _service is not None and _service[0] == os.getpid():
            return _service[1]
        return None
