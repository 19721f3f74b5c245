"""Fair dispatch on the real stack: a second tenant's job does not wait behind a burst."""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from accounts.services import api_key_create
from jobs.models import JobStatus, PdfJob
from tests.e2e.conftest import wait_for_status
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]
TERMINAL = {"completed", "failed", "cancelled"}
# A few pages of table: a few tenths of a second to render, so a burst takes a while.
JOB = {
    "html_template": "<h1>{{title}}</h1><table>{{#each rows}}<tr><td>{{this}}</td>"
    "<td>{{this}}</td></tr>{{/each}}</table>",
    "data": {"title": "burst", "rows": list(range(150))},
}
BURST = 40


def _timed_job(client: httpx.Client) -> float:
    started = time.perf_counter()
    body = client.post("/api/v1/generate-pdf-async", json=JOB).json()
    job = wait_for_status(client, body["status_url"], until=TERMINAL, timeout=240)
    assert job["status"] == "completed", job
    return time.perf_counter() - started


def test_a_tenants_single_job_runs_within_a_few_renders_of_another_tenants_burst(
    live_stack, transactional_db
):
    alice, bob = UserFactory(username="burst-alice"), UserFactory(username="single-bob")
    headers = {"X-API-Key": api_key_create(user=alice)[1]}
    with (
        httpx.Client(base_url=live_stack.base_url, headers=headers, timeout=30) as a,
        httpx.Client(
            base_url=live_stack.base_url,
            headers={"X-API-Key": api_key_create(user=bob)[1]},
            timeout=30,
        ) as b,
    ):
        alone = statistics.median(_timed_job(b) for _ in range(3))
        with ThreadPoolExecutor(8) as pool:
            codes = list(
                pool.map(
                    lambda _: a.post("/api/v1/generate-pdf-async", json=JOB).status_code,
                    range(BURST),
                )
            )
        assert codes == [202] * BURST
        behind_burst = _timed_job(b)
        still_queued = PdfJob.objects.filter(owner=alice, status=JobStatus.QUEUED).count()
        PdfJob.objects.filter(owner=alice, status=JobStatus.QUEUED).update(
            status=JobStatus.CANCELLED
        )
    print(
        f"\nFair dispatch: bob's job alone {alone:.2f} s; behind alice's {BURST}-job burst "
        f"{behind_burst:.2f} s ({behind_burst / alone:.1f} render times), with "
        f"{still_queued} of alice's jobs still queued"
    )
    assert still_queued > BURST // 4  # bob did not simply wait for the burst to drain
    assert behind_burst < 4 * alone + 2
