"""A second tenant going about its business while another attacks: it submits a small job
and reads its status in a loop, and reports the worst latency it saw of each."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import httpx

# Rounds (a submit and a status read) a bystander makes at the least.
MIN_ROUNDS = 3


@dataclass
class Bystander:
    base_url: str
    api_key: str
    submits: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> Bystander:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        ends = time.monotonic() + 30  # one round trip first, so short attacks are measured too
        while not self.reads and not self.failures and time.monotonic() < ends:
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        rounds = len(self.reads)
        ends = time.monotonic() + 30  # and one more that overlapped the attack's end,
        # and at least MIN_ROUNDS in all: an attack refused at once (faster than one
        # round) left two, too few for the latency figures the tests check.
        while (
            (len(self.reads) == rounds or len(self.reads) < MIN_ROUNDS)
            and not self.failures
            and time.monotonic() < ends
        ):
            time.sleep(0.02)
        self._stop.set()
        assert self._thread is not None
        self._thread.join(timeout=30)

    def _run(self) -> None:
        body = {"html_template": "<p>{{n}}</p>", "data": {"n": 1}, "engine": "handlebars"}
        with httpx.Client(
            base_url=self.base_url, headers={"X-API-Key": self.api_key}, timeout=30
        ) as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                submitted = client.post("/api/v1/generate-pdf-async", json=body)
                self.submits.append(time.perf_counter() - started)
                if submitted.status_code != 202:
                    self.failures.append(f"submit {submitted.status_code}: {submitted.text}")
                    continue
                started = time.perf_counter()
                status = client.get(submitted.json()["status_url"])
                self.reads.append(time.perf_counter() - started)
                if status.status_code != 200:
                    self.failures.append(f"status {status.status_code}")
                self._stop.wait(0.2)

    def summary(self) -> str:
        return (
            f"bystander: {len(self.submits)} submits (worst {max(self.submits, default=0):.3f} s),"
            f" {len(self.reads)} status reads (worst {max(self.reads, default=0):.3f} s)"
        )

    def assert_stayed_fast(self, *, seconds: float = 2.0) -> None:
        """Loose on purpose: the test machine is shared; a frozen process takes minutes."""
        assert self.failures == []
        assert self.submits, "the bystander never got a submit through"
        assert max(self.submits) < seconds, self.summary()
        assert max(self.reads, default=0) < seconds, self.summary()
