"""The asyncio client: the same operations as `pdfreports.Client`, awaited."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, TypeVar, Unpack

import httpx
from httpx_sse import aconnect_sse

from pdfreports import calls, protocol
from pdfreports.base import _BaseClient, _BaseJob
from pdfreports.calls import Call, SubmitFields
from pdfreports.errors import ApiError
from pdfreports.files import OnBytes, PartFile
from pdfreports.follow import OnUpdate, Tracker, Transport
from pdfreports.models import JobState, Template

T = TypeVar("T")


class AsyncClient(_BaseClient[httpx.AsyncClient]):
    """`async with AsyncClient(base_url, api_key) as client: job = await client.submit(...)`;
    `transport`: an httpx.AsyncBaseTransport."""

    _http_class = httpx.AsyncClient

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()
        await self._links.aclose()

    async def _send(
        self, call: Call[Any], *, http: httpx.AsyncClient | None = None, stream: bool = False
    ) -> httpx.Response:
        """Send with retries (see pdfreports.retry); a final error answer raises ApiError."""
        http = http or self._http
        request = http.build_request(call.method, call.url, **call.request)
        attempt = 0
        while True:
            try:
                response = await http.send(request, stream=stream)
            except httpx.TransportError as exc:
                delay = self._wait_after_error(call, request, attempt, exc)
            else:
                wait = self._wait_after_answer(call, request, attempt, response)
                if wait is None:
                    if not response.is_success:
                        await response.aread()
                        await response.aclose()
                        protocol.raise_for_error(response)
                    return response
                delay = wait
                await response.aclose()
            await asyncio.sleep(delay)
            attempt += 1

    async def _call(self, call: Call[T]) -> T:
        return call.parse(await self._send(call))

    async def submit(self, template: str | None = None, **fields: Unpack[SubmitFields]) -> AsyncJob:
        """Queue a report; see `pdfreports.Client.submit`."""
        return AsyncJob(self, await self._call(calls.job_submit(template, fields)))

    def job(self, job_id: str) -> AsyncJob:
        return AsyncJob(self, job_id)

    async def get_job(self, job_id: str) -> JobState:
        return await self._call(calls.job_get(job_id))

    async def list_jobs(self, *, status: str | None = None, limit: int = 50) -> list[JobState]:
        return await self._call(calls.jobs_list(status=status, limit=limit))

    async def cancel(self, job_id: str) -> JobState:
        return await self._call(calls.job_cancel(job_id))

    async def download(
        self, job_id: str, dest: str | os.PathLike[str], *, on_bytes: OnBytes | None = None
    ) -> Path:
        return await AsyncJob(self, job_id).download(dest, on_bytes=on_bytes)

    async def list_templates(self, *, include_archived: bool = False) -> list[Template]:
        return await self._call(calls.templates_list(include_archived=include_archived))

    async def get_template(self, slug: str) -> Template:
        return await self._call(calls.template_get(slug))

    async def push_template(self, slug: str, **fields: Any) -> tuple[Template, bool]:
        """Create or update the caller's template; see `pdfreports.Client.push_template`."""
        try:
            await self.get_template(slug)
        except ApiError as exc:
            if exc.status_code != 404:
                raise
            return await self._call(calls.template_create(slug, fields)), True
        return await self._call(calls.template_update(slug, fields)), False

    async def preview_template(
        self,
        slug: str,
        *,
        data: dict[str, Any] | None = None,
        options: dict[str, Any] | None = None,
        width: int | None = None,
    ) -> bytes:
        return await self._call(
            calls.template_preview(slug, data=data, options=options, width=width)
        )


class AsyncJob(_BaseJob[AsyncClient]):
    """A submitted job; `await job.wait()` follows it to the end."""

    async def refresh(self) -> JobState:
        self.state = await self.client.get_job(self.job_id)
        return self.state

    async def cancel(self) -> JobState:
        self.state = await self.client.cancel(self.job_id)
        return self.state

    async def wait(
        self,
        *,
        timeout: float | None = None,
        on_update: OnUpdate | None = None,
        transport: Transport = "auto",
        poll_interval: float = 1.0,
        raise_on_failure: bool = True,
    ) -> JobState:
        """Follow the job until it ends; see `pdfreports.Job.wait`."""
        tracker = Tracker(await self.refresh(), timeout, on_update)
        if not tracker.state.finished and transport != "poll":
            await self._follow_events(tracker)
        while not tracker.state.finished:
            tracker.check_deadline()
            await asyncio.sleep(tracker.poll_delay(poll_interval))
            tracker.accept(await self.client.get_job(self.job_id))
        self.state = tracker.state
        return tracker.result(raise_on_failure=raise_on_failure)

    async def _follow_events(self, tracker: Tracker) -> None:
        for attempt in tracker.stream_attempts(self.job_id):
            try:
                async with aconnect_sse(self.client._http, "GET", **attempt) as source:
                    if source.response.status_code != 200:
                        return
                    tracker.stream_opened(source)
                    async for line in source.response.aiter_lines():
                        if tracker.stream_line(line):
                            return
            except httpx.TransportError as exc:
                if tracker.stream_broke(exc):
                    return

    async def download(
        self, dest: str | os.PathLike[str], *, on_bytes: OnBytes | None = None
    ) -> Path:
        """Write the PDF to `dest`; see `pdfreports.Job.download`."""
        call = self._pdf_call(await self.refresh())
        response = await self.client._send(call, http=self.client._links, stream=True)
        try:
            target = protocol.download_target(Path(dest), response, self.job_id)
            total = protocol.content_length(response)
            with PartFile(target, total=total, on_bytes=on_bytes) as out:
                async for chunk in response.aiter_bytes():
                    out.write(chunk)
        finally:
            await response.aclose()
        return target
