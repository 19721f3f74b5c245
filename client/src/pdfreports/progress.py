"""How the command line shows a job moving: a live bar on a terminal, one line per stage
change otherwise (logs and pipes get no escape codes)."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)

from pdfreports.models import JobState, RunState

# The worker's stage names in words, as the browser UI shows them.
STAGE_LABELS = {
    "": "Waiting for a worker",
    "queued": "Waiting for a worker",
    "started": "Starting",
    "rendering_template": "Filling in the template",
    "rendering_charts": "Drawing charts",
    "charts": "Drawing charts",
    "laying_out": "Laying out pages",
    "storing": "Saving the PDF",
    "done": "Done",
    "failed": "Stopped by an error",
    "cancelled": "Cancelled",
    "retry_scheduled": "A temporary error: trying again shortly",
    "redriven": "Queued again, waiting for a worker",
}


def pages_text(count: int) -> str:
    """ "1 page", "50 pages"."""
    return f"{count} page" if count == 1 else f"{count} pages"


def describe(state: JobState) -> str:
    if state.status == "completed":
        pages = f", {pages_text(state.page_count)}" if state.page_count else ""
        return f"Completed{pages}"
    if state.status in ("failed", "cancelled"):
        return state.status.capitalize()
    if state.status == "queued":
        return STAGE_LABELS.get(state.stage, STAGE_LABELS["queued"])
    return STAGE_LABELS.get(state.stage) or state.stage.replace("_", " ").capitalize()


class _Bar:
    """What a job's and a run's bar share: shown live on a terminal, stopped on exit."""

    live: bool
    _progress: Progress

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.live:
            self._progress.stop()


class JobProgress(_Bar):
    """A context manager whose `update(state)` is a `Job.wait(on_update=...)` callback."""

    def __init__(self, console: Console, job_id: str) -> None:
        self.console = console
        self.job_id = job_id
        self.live = console.is_terminal
        self._last_line = ""
        self._progress = Progress(
            TextColumn("[bold]{task.fields[short_id]}[/]"),
            BarColumn(bar_width=40),
            TaskProgressColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._task: TaskID | None = None

    def __enter__(self) -> JobProgress:
        if self.live:
            self._progress.start()
            self._task = self._progress.add_task("Submitted", total=100, short_id=self.job_id[:8])
        return self

    def update(self, state: JobState) -> None:
        text = describe(state)
        if self.live and self._task is not None:
            done = 100 if state.status == "completed" else state.progress
            self._progress.update(self._task, completed=done, description=text)
            return
        line = f"{self.job_id} {state.status} {state.progress}% {text}"
        if line != self._last_line:
            self.console.print(line, highlight=False)
            self._last_line = line


class RunProgress(_Bar):
    """A run's bar counted in records (rendered + failed of total); one line per change
    when not on a terminal."""

    def __init__(self, console: Console, run_id: str) -> None:
        self.console = console
        self.run_id = run_id
        self.live = console.is_terminal
        self._progress = Progress(
            TextColumn("[bold]{task.fields[short_id]}[/]"),
            BarColumn(bar_width=40),
            TextColumn("{task.completed}/{task.total} records"),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._task: TaskID | None = None

    def __enter__(self) -> RunProgress:
        if self.live:
            self._progress.start()
            self._task = self._progress.add_task("", total=None, short_id=self.run_id[:8])
        return self

    def update(self, state: RunState) -> None:
        failed = f"{state.failed} failed" if state.failed else ""
        if self.live and self._task is not None:
            self._progress.update(
                self._task,
                total=state.total,
                completed=state.completed + state.failed,
                description=failed,
            )
            return
        self.console.print(
            f"{self.run_id} {state.status} {state.completed + state.failed}/{state.total} records"
            + (f", {failed}" if failed else ""),
            highlight=False,
        )
