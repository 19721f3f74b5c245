"""Following a run live: its state, then every newer one (counts in records), until it
finishes; the same loop as a job's (jobs.live.subscriptions.row_follow)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from jobs.live.run_events import run_group, run_state
from jobs.live.subscriptions import Member, row_follow
from jobs.models import Run, RunStatus


async def _current(run_id: str) -> dict[str, Any]:
    return run_state(await Run.objects.aget(run_id=run_id))


def run_follow(
    run_id: str, *, heartbeat: float, key_prefix: str | None = None, member: Member = None
) -> AsyncIterator[dict[str, Any] | None]:
    """Yield the run's states, newest seq only, until it finishes; None on idle ticks."""
    return row_follow(
        run_group(run_id),
        read=lambda: _current(run_id),
        finished=lambda state: state["status"] != RunStatus.RUNNING,
        label=f"run {run_id}",
        heartbeat=heartbeat,
        key_prefix=key_prefix,
        member=member,
    )
