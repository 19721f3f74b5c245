"""A run's live event: its state (counts in records), sent to the run's group."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from jobs.live.events import group_publish
from jobs.models import Run

RUN_EVENT_TYPE = "run.event"


def run_group(run_id: UUID | str) -> str:
    return f"run.{run_id}"


def run_state(run: Run) -> dict[str, Any]:
    """The run's public state without links or records: what a live event carries."""
    return {
        "run_id": str(run.run_id),
        "status": run.status,
        "total": run.total,
        "completed": run.completed,
        "failed": run.failed,
        "progress": run.progress,
        "seq": run.event_seq,
    }


def run_event_publish(run: Run) -> None:
    group_publish(
        [run_group(run.run_id)],
        {"type": RUN_EVENT_TYPE, "event": run_state(run)},
        what=f"run {run.run_id}",
    )
