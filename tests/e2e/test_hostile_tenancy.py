"""Probes of issue 19 items 5-9 on the live stack (uvicorn, a Celery worker,
Redis, the database) while a second tenant submits and reads status in a loop: its p95
stays under a second and no worker process is lost.

- Minting keys buys nothing: the 21st key is refused.
- A preview flood of slow templates: the tenant's share reaches the queue, the rest 429.
- A page allocating gigabytes of ArrayBuffers in Chromium: it stops at its ceiling, the
  worker process lives.

(A cancelled long Chromium render is probed on workers of its own:
tests/chaos/test_lifecycle.py; a tarpit callback receiver: test_callback_fairness.py.)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from accounts.services import api_key_create
from config.celery_app import app as celery_app
from core.errors import Conflict
from tests.e2e.bystander import MIN_ROUNDS, Bystander
from tests.factories import ReportTemplateFactory, UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]
SUBMIT = "/api/v1/generate-pdf-async"
SPIN = "<script>const t = Date.now(); while (Date.now() - t < 60000) {}</script><p>x</p>"
EAT = """<p id="out">pending</p><script>
  const kept = []; let got = 0;
  try { while (got < 3072) { kept.push(new Uint8Array(64 << 20).fill(1)); got += 64; } }
  catch (e) { document.getElementById("out").textContent = "refused at " + got; }
</script>"""


@pytest.fixture
def tenants(transactional_db, live_stack) -> dict[str, Any]:
    attacker, other = UserFactory(username="mallory-19b"), UserFactory(username="bob-19b")
    return {
        "attacker": attacker,
        "attacker_key": api_key_create(user=attacker, name="attack")[1],
        "other_key": api_key_create(user=other, name="bystander")[1],
    }


@pytest.fixture
def mallory(live_stack, tenants) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=live_stack.base_url, headers={"X-API-Key": tenants["attacker_key"]}, timeout=60
    ) as client:
        yield client


def _worker_processes() -> dict[str, list[int]]:
    stats = celery_app.control.inspect(timeout=2).stats() or {}
    return {
        name: sorted(info["pool"]["processes"]) for name, info in stats.items() if "e2e-" in name
    }


@pytest.fixture
def bystander(live_stack, tenants) -> Iterator[Bystander]:
    before = _worker_processes()
    with Bystander(base_url=live_stack.base_url, api_key=tenants["other_key"]) as watcher:
        yield watcher
    assert watcher.failures == []
    assert len(watcher.submits) >= MIN_ROUNDS, watcher.summary()
    p95 = statistics.quantiles(watcher.submits, n=20)[-1]
    reads_p95 = statistics.quantiles(watcher.reads, n=20)[-1]
    print(f"\n{watcher.summary()}; submit p95 {p95:.3f} s, status p95 {reads_p95:.3f} s")
    assert p95 < 1, watcher.summary()
    assert reads_p95 < 1, watcher.summary()
    assert _worker_processes() == before  # no pool process was killed or replaced


def test_keys_previews_cancels_and_browser_memory_while_a_tenant_works(mallory, tenants, bystander):
    attacker = tenants["attacker"]
    # Keys: capped per tenant (one exists already).
    for n in range(19):
        api_key_create(user=attacker, name=f"more-{n}")
    with pytest.raises(Conflict, match="API_KEYS_MAX_PER_TENANT"):
        api_key_create(user=attacker, name="one too many")

    # A preview flood of a template whose script spins: three reach the queue.
    template = ReportTemplateFactory(
        owner=attacker, slug="spinner", engine="raw", renderer="chromium", html=SPIN
    )
    preview = f"/api/v1/templates/{template.slug}/preview"
    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda _: mallory.post(preview, json={"data": {}}), range(12)))
    codes = sorted(answer.status_code for answer in answers)
    busy = [a for a in answers if a.status_code == 429]
    # At most three at a time: a render that failed fast frees its place for a later one.
    assert len(busy) >= 6, codes
    assert {a.json()["code"] for a in busy} == {"previews_busy"}
    others = [(a.status_code, a.text[:200]) for a in answers if a.status_code != 429]
    assert all(code in (200, 400, 503) for code, _ in others), others

    # A page eating gigabytes of ArrayBuffers: stopped at the process ceiling.
    eater = mallory.post(
        SUBMIT, json={"html_template": EAT, "engine": "raw", "renderer": "chromium"}
    )
    status_url = eater.json()["status_url"]
    deadline = time.monotonic() + 90
    while (seen := mallory.get(status_url).json())["status"] not in {"completed", "failed"}:
        assert time.monotonic() < deadline, seen
        time.sleep(0.3)
    if seen["status"] == "completed":
        pdf = mallory.get(seen["pdf_url"]).content
        assert b"%PDF" in pdf[:8]
    else:
        assert seen["error_code"] in {"limit_exceeded", "render_error"}, seen
    print(
        f"\nProbes: 21st key refused; 12 slow previews -> {len(busy)} x 429; "
        f"a page eating 3 GB ended {seen['status']}"
    )
