"""The callbacks queue under one tenant's tarpit receiver, on a real thread-pool worker:
the tarpit holds the tenant's share of the threads, never everyone's, and another
tenant's callback is delivered at once."""

from __future__ import annotations

import time

import pytest

from config import devstack
from jobs.dispatch import CALLBACK_TASK
from jobs.models import JobStatus, PdfJob
from tests.chaos.conftest import wait_for
from tests.factories import PdfJobFactory, UserFactory
from tests.http_receiver import Receiver
from tests.processes import start, wait_for_worker

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def test_a_tarpit_receiver_does_not_hold_the_callback_threads_of_other_tenants(chaos):
    name = "callbacks-fair"
    log = chaos.logs / f"{name}.log"
    env = {
        **chaos.env,
        "CALLBACK_TIMEOUT_SECONDS": "4",
        "CALLBACK_CONNECT_TIMEOUT_SECONDS": "1",
        "CALLBACK_MAX_CONCURRENT_PER_TENANT": "2",
        "CALLBACK_SLOW_SECONDS": "2",
    }
    args = devstack.worker_args(queues="callbacks", concurrency=4, name=name, pool="threads")
    proc = start([*args, "--without-gossip", "--without-mingle"], env=env, log=log)
    chaos.procs.append(proc)
    wait_for_worker(chaos.app, name, proc, log)
    tarpit, fast = Receiver(delay=30), Receiver()
    try:
        greedy, modest = UserFactory(), UserFactory()
        stuck = [
            PdfJobFactory(owner=greedy, status=JobStatus.FAILED, callback_url=tarpit.url)
            for _ in range(8)
        ]
        for job in stuck:
            chaos.app.send_task(CALLBACK_TASK, args=[str(job.job_id)], queue="callbacks")
        time.sleep(1.5)  # the greedy tenant's deliveries have taken what they can
        other = PdfJobFactory(owner=modest, status=JobStatus.FAILED, callback_url=fast.url)
        sent = time.monotonic()
        chaos.app.send_task(CALLBACK_TASK, args=[str(other.job_id)], queue="callbacks")

        def delivered() -> bool:
            return bool(PdfJob.objects.filter(pk=other.pk, callback_sent_at__isnull=False))

        wait_for(delivered, timeout=20, what="the other tenant's callback", chaos=chaos)
        took = time.monotonic() - sent
        time.sleep(3)  # and the greedy tenant is held to its share meanwhile
        attempted = [PdfJob.objects.get(pk=job.pk).callback_attempts for job in stuck]
    finally:
        tarpit.server.shutdown()
        fast.server.shutdown()
    assert len(fast.received) == 1
    assert took < 2, took
    # At most its two threads at a time, each for the 4 s deadline (then one, once slow):
    # in ~6 s no more than 4 of its 8 deliveries were even tried.
    assert sum(attempted) <= 4, attempted
    print(
        f"\nCallbacks: a tarpit tenant's 8 deliveries left another tenant's callback "
        f"delivered in {took:.2f} s; the tarpit's attempts meanwhile: {sum(attempted)}"
    )
