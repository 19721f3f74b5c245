"""Take the docs' screenshots (docs/img/*.png) from a running `make run`.

    make run                                   # in one shell (PORT as you like)
    .venv/bin/python docs/screenshots.py       # in another: BASE_URL, default 127.0.0.1:$PORT

It submits the jobs the pictures need through the API with the demo key (var/demo-api-key):
the `invoice` sample (completed) and an inline Jinja2 template that divides by zero (a
failed job), waits for both, then drives Debian's headless Chromium through Playwright (the
library the browser tests use, launched on the system binary, so no browser is downloaded)
signed in as `demo`: the gallery, a template's data form, the completed job's page, the ops
dashboard and the failed job in the admin. The first page of the invoice PDF is drawn by
pdftoppm. Every PNG is reduced to a 256-colour palette so each stays well under 300 KB.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img"
BASE_URL = os.environ.get("BASE_URL", f"http://127.0.0.1:{os.environ.get('PORT', '8000')}")
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
MAX_BYTES = 300 * 1024
TRAFFIC = int(os.environ.get("SCREENSHOT_TRAFFIC", "12"))  # extra jobs for the dashboard


def api(method: str, path: str, key: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(  # noqa: S310 - a loopback URL the caller chose
        f"{BASE_URL}/api/v1/{path}",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        method=method,
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        return (
            json.loads(response.read())
            if "json" in response.headers["Content-Type"]
            else response.read()
        )


def wait_finished(key: str, job_id: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state: dict[str, Any] = api("GET", f"jobs/{job_id}", key)
        if state["status"] in {"completed", "failed", "cancelled"}:
            return state
        time.sleep(0.5)
    raise SystemExit(f"job {job_id} did not finish within {timeout} s: is a worker running?")


def save_small(png: bytes, name: str) -> None:
    """Write the PNG as a 256-colour palette image: UI screenshots lose nothing visible."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    small = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    path = OUT / f"{name}.png"
    small.save(path, optimize=True)
    size = path.stat().st_size
    print(f"{path.relative_to(ROOT)}: {image.width}x{image.height}, {size // 1024} KB")
    if size > MAX_BYTES:
        raise SystemExit(f"{path} is {size // 1024} KB, over {MAX_BYTES // 1024} KB")


def sample_page(pdf: bytes) -> None:
    """The first page of the invoice PDF, as pdftoppm draws it."""
    if not shutil.which("pdftoppm"):
        raise SystemExit("pdftoppm is missing: apt-get install poppler-utils")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "invoice.pdf"
        source.write_bytes(pdf)
        subprocess.run(  # noqa: S603 - fixed arguments, a file this script wrote
            [  # noqa: S607 - pdftoppm from PATH, checked above
                "pdftoppm",
                "-png",
                "-r",
                "60",
                "-f",
                "1",
                "-l",
                "1",
                "-singlefile",
                str(source),
                str(Path(tmp) / "page"),
            ],
            check=True,
        )
        save_small((Path(tmp) / "page.png").read_bytes(), "sample-invoice")


def main() -> None:
    key = (ROOT / "var" / "demo-api-key").read_text().strip()
    invoice = {
        "template": "invoice",
        "data": json.loads((ROOT / "templates" / "samples" / "invoice.json").read_text()),
    }
    completed = api("POST", "generate-pdf-async", key, invoice)
    failing = api(
        "POST",
        "generate-pdf-async",
        key,
        {
            "html_template": "<p>{{ total / count }}</p>",
            "engine": "jinja2",
            "data": {"total": 1, "count": 0},
        },
    )
    # Some traffic for the dashboard's charts and figures: a batch of invoices, one failure.
    bad = {"html_template": "{{ 1 / 0 }}", "engine": "jinja2", "data": {}}
    batch = api("POST", "generate-pdf-batch", key, {"items": [invoice] * TRAFFIC + [bad]})
    for item in batch["jobs"]:
        wait_finished(key, item["job_id"])
    done = wait_finished(key, completed["job_id"])
    failed = wait_finished(key, failing["job_id"])
    if done["status"] != "completed" or failed["status"] != "failed":
        raise SystemExit(f"unexpected outcomes: {done['status']}, {failed['status']}")
    OUT.mkdir(parents=True, exist_ok=True)
    with urllib.request.urlopen(done["pdf_url"], timeout=30) as response:  # noqa: S310
        sample_page(response.read())

    from playwright.sync_api import ViewportSize, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_context(
            base_url=BASE_URL, viewport=ViewportSize(width=1200, height=780), locale="en-GB"
        ).new_page()
        page.goto("/login/")
        page.get_by_label("Username").fill("demo")
        page.get_by_label("Password").fill("demo")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/")
        shots = [
            ("gallery", "/reports/new/"),
            ("form", "/reports/new/invoice/"),
            ("job-page", f"/jobs/{done['job_id']}/"),
            ("ops-dashboard", "/ops/"),
            ("admin-failed-job", f"/admin/jobs/pdfjob/?q={failed['job_id']}"),
        ]
        for name, path in shots:
            page.goto(path)
            page.wait_for_load_state("networkidle")
            if name == "admin-failed-job":  # the list found the one job: open its page
                page.locator("#result_list tbody tr th a").first.click()
                page.wait_for_load_state("networkidle")
            time.sleep(1.0)  # thumbnails, live status and charts draw after load
            save_small(page.screenshot(), name)
        browser.close()


if __name__ == "__main__":
    main()
