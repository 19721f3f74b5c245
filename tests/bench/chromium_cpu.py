"""CPU a one-page PDF of the `chromium` renderer against a bare Playwright loop, by process
(issue 38 part (e)): in one process, blocks of jobs alternating between the modes named on
the command line, CPU counted for this process's whole tree (exited renderers included,
through their parents' reaped-children times), split by process type.

    python -m tests.bench.chromium_cpu [--rounds 8] [--block 5] service svc svc:noconf bare

Modes: `service` (the renderer as a job calls it, `get_renderer("chromium").render`),
`bare` (a plain Playwright launch, `set_content` + `pdf`, a new context a PDF, as part (e)'s
baseline), `svc:flag,...` (a ChromiumService of its own running chromium._print's steps,
with the flags' steps or launch switches left out; see `variant_mode`). Each mode has its
own browser; they alternate in blocks so the machine's load falls on all alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import psutil

from tests.bench.chromium_pipeline import CHROMIUM, chromium_document, prepared_invoice
from tests.bench.pipeline import _django

_kinds: dict[int, str] = {}


def _kind(proc: psutil.Process, me: int) -> str:
    if proc.pid not in _kinds:
        _kinds[proc.pid] = _kind_of(proc, me)
    return _kinds[proc.pid]


def _kind_of(proc: psutil.Process, me: int) -> str:
    if proc.pid == me:
        return "python"
    try:
        cmd = proc.cmdline()
    except psutil.Error:
        return "gone"
    joined = " ".join(cmd)
    if "node" in os.path.basename(cmd[0] if cmd else "") or "cli.js" in joined:
        return "driver"
    for arg in cmd:
        if arg.startswith("--type="):
            kind = arg.split("=", 1)[1]
            if kind == "utility":
                sub = next((a for a in cmd if a.startswith("--utility-sub-type=")), "")
                return "utility:" + sub.rsplit(".", 1)[-1]
            return kind
    if cmd and cmd[0].endswith(("sh", "setpriv")):
        return "launcher"
    return "browser"


def snapshot() -> dict[tuple[int, str], float]:
    me = psutil.Process()
    found: dict[tuple[int, str], float] = {}
    for proc in [me, *me.children(recursive=True)]:
        try:
            t = proc.cpu_times()
        except psutil.Error:
            continue
        own = t.user + t.system
        reaped = t.children_user + t.children_system
        kind = _kind(proc, me.pid)
        found[(proc.pid, kind)] = own
        # Exited children (renderers reaped by the zygote): counted once at their parent.
        found[(proc.pid, f"reaped under {kind}")] = reaped
    return found


def delta(
    before: dict[tuple[int, str], float], after: dict[tuple[int, str], float]
) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    # A zombie's CPU moves to its parent's reaped times when it is reaped: every key of
    # both, the vanished ones negative, so nothing is counted twice.
    for key in after.keys() | before.keys():
        out[key[1]] += after.get(key, 0.0) - before.get(key, 0.0)
    return out


def service_mode() -> Callable[[], None]:
    from rendering.renderers import get_renderer
    from rendering.renderers.base import LayoutJob

    prepared, options, limits = prepared_invoice()
    renderer = get_renderer("chromium")

    def one() -> None:
        renderer.render(
            LayoutJob(
                body_html=prepared.body_html, css=prepared.css, options=options, limits=limits
            )
        )

    return one


_bare: dict[str, Any] = {}


def bare_mode() -> Callable[[], None]:
    from playwright.sync_api import sync_playwright

    from rendering.renderers.chromium_browser import fontconfig_file

    document = chromium_document()
    playwright = sync_playwright().start()
    env: dict[str, str | float | bool] = {**os.environ, "FONTCONFIG_FILE": str(fontconfig_file())}
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), env=env)
    _bare["keep"] = (playwright, browser)

    def one() -> None:
        context = browser.new_context()
        page = context.new_page()
        page.set_content(document)
        page.pdf(format="A4", print_background=True)
        context.close()

    return one


async def _variant_print(job: Any, context: Any, flags: set[str]) -> bytes:
    """chromium._print's steps, each one left out when `flags` names it."""
    from rendering.renderers import chromium

    chromium._context_jobs[context] = job
    page = context.pages[0] if context.pages else await context.new_page()
    if "setcontent" in flags:
        await page.set_content(job.document)
    else:
        await page.goto(f"{chromium.ORIGIN}/", wait_until="commit")
        if "noloaded" not in flags:
            await page.evaluate(chromium._LOADED_JS)
    if "nosettle" not in flags:
        settle = chromium._SETTLE_JS
        if "nofeature" in flags:
            reshape = "document.documentElement.style.setProperty("
            settle = "\n".join(line for line in settle.splitlines() if reshape not in line)
            assert settle != chromium._SETTLE_JS
        if "noraf" in flags:
            settle = settle.replace(
                "requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0)))",
                "setTimeout(done, 0)",
            )
            assert settle != chromium._SETTLE_JS
        await page.evaluate(settle)
    if "noswitch" not in flags:
        session = await context.new_cdp_session(page)
        await session.send("Emulation.setScriptExecutionDisabled", {"value": True})
    if "plainpdf" in flags:
        return await page.pdf(format="A4", print_background=True)
    options = job.options
    return await page.pdf(
        format=options.page_size,
        landscape=options.orientation == "landscape",
        print_background=True,
        prefer_css_page_size=False,
        display_header_footer=False,
        header_template="<span/>",
        footer_template="<span/>",
        page_ranges=job.page_ranges,
        outline=False,
        tagged=False,
    )


# Playwright 1.65's --disable-features list (its chromiumSwitches).
_PLAYWRIGHT_DISABLED = (
    "AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,"
    "HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,"
    "ThirdPartyStoragePartitioning,AvoidCorsURLLoaderRestartOnRedirect,TcpPortRandomizationWin,"
    "OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch,"
    "msForceBrowserSignIn,msEdgeUpdateLaunchServicesPreferredVersion"
).split(",")


_NO_SPARE = "--disable-features=" + ",".join(
    [*_PLAYWRIGHT_DISABLED, "SpareRendererForSitePerProcess"]
)


def variant_mode(spec: str) -> Callable[[], None]:
    """`svc:flag,flag`: a ChromiumService of its own with chromium._print's steps (the
    flags leave steps or launch switches out: nogpu (no --disable-gpu), noconf (no launcher,
    root, no sandbox), nosandbox, noulimit, nosetup (no routes; implies setcontent), nows (no
    route_web_socket), setcontent (set_content instead of the routed document), noloaded,
    nosettle, nofeature (the settle without its reshape), noraf (without its two frames),
    noswitch (no script switch-off), plainpdf (Playwright's default pdf options), nospare
    (Chromium's spare renderer off, Playwright's --disable-features list kept))."""
    from rendering.renderers import chromium
    from rendering.renderers import chromium_browser as cb
    from rendering.renderers.base import LayoutBounds
    from rendering.renderers.chromium_confinement import Confinement
    from rendering.renderers.document import html_document

    flags = set(filter(None, spec.partition(":")[2].split(",")))
    prepared, options, limits = prepared_invoice()
    document = html_document(
        body_html=prepared.body_html, css=prepared.css, options=options, font_url=None
    )
    settings = chromium.layout_settings(limits)["settings"]
    bounds = LayoutBounds.from_limits(limits)
    confinement = settings.confinement
    if "noconf" in flags:
        confinement = Confinement(memory_mb=0, run_as="", sandbox=False)
    if "nosandbox" in flags:
        confinement = replace(confinement, sandbox=False)
    if "noulimit" in flags:
        confinement = replace(confinement, memory_mb=0)
    drop = {"--disable-gpu"} if "nogpu" in flags else set()
    # Chromium reads only the last --disable-features: Playwright's own list repeated.
    add = [_NO_SPARE] if "nospare" in flags else []

    async def setup(context: Any) -> None:
        if "nows" not in flags:
            await chromium.context_setup(context)
            return
        chromium._context_jobs[context] = None
        await context.route("**/*", lambda route: chromium._context_route(context, route))

    class Service(cb.ChromiumService):
        async def _launch(self) -> Any:
            original = cb.launch_args
            cb.launch_args = lambda *, memory_mb: (
                [  # type: ignore[assignment]
                    a for a in original(memory_mb=memory_mb) if a not in drop
                ]
                + add
            )
            try:
                return await super()._launch()
            finally:
                cb.launch_args = original

    service = Service(
        executable=settings.executable,
        max_jobs=10**6,
        memory_mb=settings.memory_mb,
        confinement=confinement,
        context_setup=None if "nosetup" in flags else setup,
    )

    def one() -> None:
        job = chromium._Job(
            document=document,
            options=options,
            policy=bounds.policy,
            settings=settings,
            deadline_seconds=bounds.max_render_seconds,
            page_ranges=f"1-{bounds.max_pages + 1}",
            toc=False,
        )
        if "nosetup" in flags:
            flags.add("setcontent")
        service.run(lambda context: _variant_print(job, context, flags), timeout=60)

    return one


MODES: dict[str, Callable[[], Callable[[], None]]] = {"service": service_mode, "bare": bare_mode}


def _mode(name: str) -> Callable[[], None]:
    return variant_mode(name) if name.startswith("svc") else MODES[name]()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--block", type=int, default=5)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("modes", nargs="+")
    args = parser.parse_args()
    _django()
    runners = {name: _mode(name) for name in args.modes}
    for run in runners.values():
        for _ in range(args.warm):
            run()
    time.sleep(1)
    per_block: dict[str, list[float]] = defaultdict(list)
    by_kind: dict[str, dict[str, float]] = {name: defaultdict(float) for name in runners}
    counts: dict[str, int] = defaultdict(int)
    for _ in range(args.rounds):
        for name, run in runners.items():
            before = snapshot()
            for _ in range(args.block):
                run()
            time.sleep(0.3)  # the spare context and the closed one's renderer exit
            got = delta(before, snapshot())
            per_block[name].append(sum(got.values()) / args.block * 1000)
            counts[name] += args.block
            for kind, value in got.items():
                by_kind[name][kind] += value
    print(f"load {os.getloadavg()[0]:.1f}")
    for name in runners:
        blocks = per_block[name]
        print(
            f"{name:>10}: median {statistics.median(blocks):6.0f} ms a PDF; blocks "
            + " ".join(f"{b:.0f}" for b in blocks)
        )
        kinds = sorted(by_kind[name].items(), key=lambda kv: -kv[1])
        print(
            "            "
            + ", ".join(f"{k} {v / counts[name] * 1000:.0f}" for k, v in kinds if abs(v) > 0.0005)
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
