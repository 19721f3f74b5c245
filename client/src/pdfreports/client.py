"""The synchronous client: `Client(base_url, api_key).submit(...)` returns a `Job` to wait on."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, Unpack

import httpx
from httpx_sse import connect_sse

from pdfreports import calls, protocol
from pdfreports.base import _BaseClient, _BaseJob, link_call
from pdfreports.calls import Call, SubmitFields
from pdfreports.errors import ApiError, PdfReportsError
from pdfreports.files import OnBytes, PartFile
from pdfreports.follow import OnUpdate, Tracker, Transport
from pdfreports.models import JobState, RunState, Template

T = TypeVar("T")


class Client(_BaseClient[httpx.Client]):
    """A connection to the service, authenticated by API key. Use it as a context manager
    (or call `close()`) to release its connections. `transport`: an httpx.BaseTransport."""

    _http_class = httpx.Client

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()
        self._links.close()

    # -- transport ---------------------------------------------------------------------

    def _send(
        self, call: Call[Any], *, http: httpx.Client | None = None, stream: bool = False
    ) -> httpx.Response:
        """Send with retries (see pdfreports.retry); a final error answer raises ApiError."""
        http = http or self._http
        request = http.build_request(call.method, call.url, **call.request)
        attempt = 0
        while True:
            try:
                response = http.send(request, stream=stream)
            except httpx.TransportError as exc:
                delay = self._wait_after_error(call, request, attempt, exc)
            else:
                wait = self._wait_after_answer(call, request, attempt, response)
                if wait is None:
                    if not response.is_success:
                        response.read()
                        response.close()
                        protocol.raise_for_error(response)
                    return response
                delay = wait
                response.close()
            time.sleep(delay)
            attempt += 1

    def _call(self, call: Call[T]) -> T:
        return call.parse(self._send(call))

    def _json(self, method: str, url: str, *, idempotent: bool, **kwargs: Any) -> Any:
        call = Call(method, url, lambda response: response.json(), idempotent, kwargs)
        return self._call(call)

    # -- jobs --------------------------------------------------------------------------

    def submit(self, template: str | None = None, **fields: Unpack[SubmitFields]) -> Job:
        """Queue a report from a stored template (by slug) or inline HTML
        (`html_template=`), with `data`, `engine`, `options`, `callback_url`, `renderer`
        and `cache`. Every submit carries an Idempotency-Key (a new one unless given as
        `idempotency_key`), so the retries this client makes, or a caller's own with the
        same key, never create a second job."""
        return Job(self, self._call(calls.job_submit(template, fields)))

    def job(self, job_id: str) -> Job:
        return Job(self, job_id)

    def get_job(self, job_id: str) -> JobState:
        return self._call(calls.job_get(job_id))

    def list_jobs(self, *, status: str | None = None, limit: int = 50) -> list[JobState]:
        return self._call(calls.jobs_list(status=status, limit=limit))

    def cancel(self, job_id: str) -> JobState:
        return self._call(calls.job_cancel(job_id))

    def download(
        self, job_id: str, dest: str | os.PathLike[str], *, on_bytes: OnBytes | None = None
    ) -> Path:
        """Write a completed job's PDF to `dest` (a file, or a directory for the service's
        file name). Raises JobFailed if the job failed, ApiError if it is not done."""
        return Job(self, job_id).download(dest, on_bytes=on_bytes)

    # -- schedules ---------------------------------------------------------------------

    def list_schedules(self, *, limit: int = 200) -> list[dict[str, Any]]:
        page = self._json(
            "GET", f"{protocol.API}/schedules", params={"limit": limit}, idempotent=True
        )
        return list(page["results"])

    def find_schedule_id(self, prefix: str) -> str:
        """The whole id of the one schedule whose id starts with `prefix` (as a table may
        show it, shortened); a whole id is returned as it is. PdfReportsError when none or
        several match."""
        wanted = prefix.strip().rstrip("…").lower()
        if len(wanted) == 36:
            return wanted
        if len(wanted) < 4:
            raise PdfReportsError(f"schedule id {prefix!r}: give at least 4 characters")
        found = [
            str(s["schedule_id"])
            for s in self.list_schedules()
            if str(s["schedule_id"]).lower().startswith(wanted)
        ]
        if not found:
            raise PdfReportsError(f"no schedule id starts with {prefix!r}")
        if len(found) > 1:
            raise PdfReportsError(
                f"{len(found)} schedule ids start with {prefix!r}: {', '.join(found)}"
            )
        return found[0]

    def create_schedule(self, **fields: Any) -> dict[str, Any]:
        """`template`, `cron`, and any of `data`, `data_url`, `timezone`, `deliveries`,
        `name`, `paused`; the service's answer (with `schedule_id`, `next_run_at`)."""
        body = {k: v for k, v in fields.items() if v is not None}
        return dict(self._json("POST", f"{protocol.API}/schedules", json=body, idempotent=False))

    def update_schedule(self, schedule_id: str, **fields: Any) -> dict[str, Any]:
        """Edit, or pause (`paused=True`) and resume; a PATCH is safe to repeat."""
        path = f"{protocol.API}/schedules/{schedule_id}"
        return dict(self._json("PATCH", path, json=fields, idempotent=True))

    def run_schedule(self, schedule_id: str) -> dict[str, Any]:
        """Run it now: the new run (`run_id`, `outcome`)."""
        path = f"{protocol.API}/schedules/{schedule_id}/run"
        return dict(self._json("POST", path, idempotent=False))

    def schedule_runs(self, schedule_id: str, *, limit: int = 50) -> list[dict[str, Any]]:
        path = f"{protocol.API}/schedules/{schedule_id}/runs"
        return list(self._json("GET", path, params={"limit": limit}, idempotent=True)["results"])

    # -- runs --------------------------------------------------------------------------

    def start_run(
        self,
        template: str,
        *,
        records: list[dict[str, Any]] | None = None,
        file: str | os.PathLike[str] | None = None,
        output: str = "zip",
        filename_pattern: str = "",
    ) -> Run:
        """Render `template` once per record: `records` as a list, or `file` (a CSV with
        a header row, a JSON array or NDJSON) uploaded as it is. Not retried once sent: a
        second POST would make a second run."""
        fields = {"template": template, "output": output, "filename_pattern": filename_pattern}
        if file is not None:
            path = Path(file)
            with path.open("rb") as handle:
                answer = self._json(
                    "POST",
                    protocol.run_path(),
                    data=fields,
                    files={"file": (path.name, handle.read())},
                    idempotent=False,
                )
        else:
            answer = self._json(
                "POST",
                protocol.run_path(),
                json={**fields, "records": records or []},
                idempotent=False,
            )
        return Run(self, str(answer["run_id"]))

    def run(self, run_id: str) -> Run:
        return Run(self, run_id)

    def get_run(self, run_id: str) -> RunState:
        return RunState.from_json(self._json("GET", protocol.run_path(run_id), idempotent=True))

    # -- templates ---------------------------------------------------------------------

    def list_templates(self, *, include_archived: bool = False) -> list[Template]:
        return self._call(calls.templates_list(include_archived=include_archived))

    def get_template(self, slug: str) -> Template:
        return self._call(calls.template_get(slug))

    def push_template(self, slug: str, **fields: Any) -> tuple[Template, bool]:
        """Create the template (published as version 1), or update the caller's own one
        with the given fields (a change to what renders saves a draft, which jobs render
        only once it is published). Returns (template, created)."""
        try:
            self.get_template(slug)
        except ApiError as exc:
            if exc.status_code != 404:
                raise
            return self._call(calls.template_create(slug, fields)), True
        return self._call(calls.template_update(slug, fields)), False

    def publish_template(self, slug: str) -> Template:
        """Publish the template's draft: new jobs render it."""
        path = protocol.template_path(slug, "/publish")
        return Template.from_json(self._json("POST", path, idempotent=True))

    def rollback_template(self, slug: str, version: int) -> Template:
        """Publish an earlier version again."""
        path = protocol.template_path(slug, "/rollback")
        body = {"version": version}
        return Template.from_json(self._json("POST", path, json=body, idempotent=True))

    def diff_template(
        self, slug: str, *, from_version: str | None = None, to_version: str | None = None
    ) -> dict[str, Any]:
        """Compare two versions (numbers, "draft" or "published"): per page changed pixels
        and image URLs, and the source diff."""
        params = {"from": from_version, "to": to_version}
        path = protocol.template_path(slug, "/diff")
        kept = {k: v for k, v in params.items() if v is not None}
        answer: dict[str, Any] = self._json("GET", path, params=kept, idempotent=True)
        return answer

    def preview_template(
        self,
        slug: str,
        *,
        data: dict[str, Any] | None = None,
        options: dict[str, Any] | None = None,
        width: int | None = None,
        version: str | None = None,
    ) -> bytes:
        """The template's first page as PNG bytes (with its sample data unless given), of
        the published version unless `version` ("draft", a number) names another."""
        preview = calls.template_preview(
            slug, data=data, options=options, width=width, version=version
        )
        return self._call(preview)


class Job(_BaseJob[Client]):
    """A submitted job. `state` is the last state seen; `wait()` follows it to the end."""

    def refresh(self) -> JobState:
        self.state = self.client.get_job(self.job_id)
        return self.state

    def cancel(self) -> JobState:
        self.state = self.client.cancel(self.job_id)
        return self.state

    def wait(
        self,
        *,
        timeout: float | None = None,
        on_update: OnUpdate | None = None,
        transport: Transport = "auto",
        poll_interval: float = 1.0,
        raise_on_failure: bool = True,
    ) -> JobState:
        """Follow the job until it completes, fails or is cancelled: over Server-Sent
        Events, falling back to polling when the stream is refused or goes silent (a
        proxy that blocks or buffers it). `on_update` gets every new state. Raises
        JobFailed if it did not complete (unless raise_on_failure=False) and WaitTimeout
        after `timeout` seconds."""
        tracker = Tracker(self.refresh(), timeout, on_update)
        if not tracker.state.finished and transport != "poll":
            self._follow_events(tracker)
        while not tracker.state.finished:
            tracker.check_deadline()
            time.sleep(tracker.poll_delay(poll_interval))
            tracker.accept(self.client.get_job(self.job_id))
        self.state = tracker.state
        return tracker.result(raise_on_failure=raise_on_failure)

    def _follow_events(self, tracker: Tracker) -> None:
        """Apply SSE events until the job ends; return early if the stream is unusable."""
        for attempt in tracker.stream_attempts(self.job_id):
            try:
                with connect_sse(self.client._http, "GET", **attempt) as source:
                    if source.response.status_code != 200:
                        return  # refused (by the service or a proxy): poll instead
                    tracker.stream_opened(source)
                    for line in source.response.iter_lines():
                        if tracker.stream_line(line):
                            return
            except httpx.TransportError as exc:
                if tracker.stream_broke(exc):
                    return

    def download(self, dest: str | os.PathLike[str], *, on_bytes: OnBytes | None = None) -> Path:
        """Write the PDF to `dest` (a file path, or an existing directory to use the
        service's file name). Written to a `.part` file first, renamed when complete."""
        call = self._pdf_call(self.refresh())
        response = self.client._send(call, http=self.client._links, stream=True)
        try:
            target = protocol.download_target(Path(dest), response, self.job_id)
            total = protocol.content_length(response)
            with PartFile(target, total=total, on_bytes=on_bytes) as out:
                for chunk in response.iter_bytes():
                    out.write(chunk)
        finally:
            response.close()
        return target


class Run:
    """A started run. `wait()` follows it until every record rendered or failed."""

    def __init__(self, client: Client, run_id: str) -> None:
        self.client = client
        self.run_id = run_id
        self.state: RunState | None = None

    def __repr__(self) -> str:
        return f"<Run {self.run_id} {self.state.status if self.state else '?'}>"

    def refresh(self) -> RunState:
        self.state = self.client.get_run(self.run_id)
        return self.state

    def wait(
        self,
        *,
        timeout: float | None = None,
        on_update: Callable[[RunState], None] | None = None,
        poll_interval: float = 1.0,
    ) -> RunState:
        """Poll until the run finished (whatever its records' outcome); `on_update` gets
        each state whose counts changed. PdfReportsError after `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        last = None
        while True:
            state = self.refresh()
            if on_update and (state.completed, state.failed) != last:
                on_update(state)
                last = (state.completed, state.failed)
            if state.finished:
                return state
            if deadline is not None and time.monotonic() > deadline:
                raise PdfReportsError(f"run {self.run_id} is still running after {timeout:g} s")
            time.sleep(poll_interval)

    def retry_failed(self) -> RunState:
        answer = self.client._json(
            "POST", protocol.run_path(self.run_id, "/retry-failed"), idempotent=False
        )
        self.state = RunState.from_json(answer)
        return self.state

    def download(self, dest: str | os.PathLike[str]) -> Path:
        """Write the run's ZIP or combined PDF to `dest` (`.part` first, then renamed); while
        the service prepares a combined PDF (202) it waits as long as Retry-After says."""
        state = self.state if self.state and self.state.finished else self.refresh()
        if not state.download_url:
            raise PdfReportsError(
                f"run {self.run_id} is {state.status}: nothing to download"
                + (
                    " (output separate: download each job)"
                    if state.raw.get("output") == "separate"
                    else ""
                )
            )
        while True:
            response = self.client._send(
                link_call(state.download_url), http=self.client._links, stream=True
            )
            if response.status_code != 202:
                break
            # A combined PDF is being built on a worker: ask again when the server says.
            response.close()
            time.sleep(float(response.headers.get("Retry-After", "2")))
        try:
            with PartFile(Path(dest)) as out:
                for chunk in response.iter_bytes():
                    out.write(chunk)
        finally:
            response.close()
        return out.target
