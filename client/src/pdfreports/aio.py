"""The asyncio client: the same operations as `pdfreports.Client`, awaited."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import SSEError, aconnect_sse

from pdfreports import protocol
from pdfreports.base import _BaseClient
from pdfreports.errors import ApiError, JobFailed, PdfReportsError
from pdfreports.follow import SSE_MAX_FAILURES, OnUpdate, Tracker, Transport
from pdfreports.models import JobState, Template

OnBytes = Callable[[int, int | None], None]


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
        self,
        method: str,
        url: str,
        *,
        idempotent: bool,
        http: httpx.AsyncClient | None = None,
        stream: bool = False,
        **kwargs: Any,
    ) -> httpx.Response:
        """Send with retries (see pdfreports.retry); a final error answer raises ApiError."""
        http = http or self._http
        request = http.build_request(method, url, **kwargs)
        attempt = 0
        while True:
            try:
                response = await http.send(request, stream=stream)
            except httpx.TransportError as exc:
                delay = self._wait_after_error(method, request, attempt, idempotent, exc)
            else:
                wait = self._wait_after_answer(method, request, attempt, idempotent, response)
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

    async def _json(self, method: str, url: str, *, idempotent: bool, **kwargs: Any) -> Any:
        return (await self._send(method, url, idempotent=idempotent, **kwargs)).json()

    async def submit(
        self,
        template: str | None = None,
        *,
        html_template: str | None = None,
        data: dict[str, Any] | None = None,
        engine: str | None = None,
        options: dict[str, Any] | None = None,
        callback_url: str | None = None,
        idempotency_key: str | None = None,
        renderer: str | None = None,
        cache: bool | None = None,
    ) -> AsyncJob:
        """Queue a report; see `pdfreports.Client.submit`."""
        body = protocol.submit_body(
            template=template,
            html_template=html_template,
            data=data,
            engine=engine,
            options=options,
            callback_url=callback_url,
            renderer=renderer,
            cache=cache,
        )
        key = idempotency_key or str(uuid.uuid4())
        answer = await self._json(
            "POST",
            protocol.submit_path(),
            json=body,
            headers={"Idempotency-Key": key},
            idempotent=True,
        )
        return AsyncJob(self, str(answer["job_id"]))

    def job(self, job_id: str) -> AsyncJob:
        return AsyncJob(self, job_id)

    async def get_job(self, job_id: str) -> JobState:
        body = await self._json("GET", protocol.job_path(job_id), idempotent=True)
        return JobState.from_json(body)

    async def list_jobs(self, *, status: str | None = None, limit: int = 50) -> list[JobState]:
        params: dict[str, Any] = {"limit": limit} | ({"status": status} if status else {})
        page = await self._json("GET", f"{protocol.API}/jobs", params=params, idempotent=True)
        return [JobState.from_json(item) for item in page["results"]]

    async def cancel(self, job_id: str) -> JobState:
        path = protocol.job_path(job_id, "/cancel")
        return JobState.from_json(await self._json("POST", path, idempotent=False))

    async def download(
        self, job_id: str, dest: str | os.PathLike[str], *, on_bytes: OnBytes | None = None
    ) -> Path:
        return await AsyncJob(self, job_id).download(dest, on_bytes=on_bytes)

    async def list_templates(self, *, include_archived: bool = False) -> list[Template]:
        params = {"archived": "true"} if include_archived else {}
        answer = await self._json("GET", protocol.template_path(), params=params, idempotent=True)
        return [Template.from_json(item) for item in answer]

    async def get_template(self, slug: str) -> Template:
        body = await self._json("GET", protocol.template_path(slug), idempotent=True)
        return Template.from_json(body)

    async def push_template(self, slug: str, **fields: Any) -> tuple[Template, bool]:
        """Create or update the caller's template; see `pdfreports.Client.push_template`."""
        try:
            await self.get_template(slug)
        except ApiError as exc:
            if exc.status_code != 404:
                raise
            body = {"slug": slug, "name": fields.pop("name", None) or slug, **fields}
            answer = await self._json("POST", protocol.template_path(), json=body, idempotent=False)
            return Template.from_json(answer), True
        path = protocol.template_path(slug)
        answer = await self._json("PATCH", path, json=fields, idempotent=True)
        return Template.from_json(answer), False

    async def preview_template(
        self,
        slug: str,
        *,
        data: dict[str, Any] | None = None,
        options: dict[str, Any] | None = None,
        width: int | None = None,
    ) -> bytes:
        body: dict[str, Any] = {"options": options or {}}
        if data is not None:
            body["data"] = data
        if width is not None:
            body["width"] = width
        path = protocol.template_path(slug, "/preview")
        return (await self._send("POST", path, json=body, idempotent=True)).content


class AsyncJob:
    """A submitted job; `await job.wait()` follows it to the end."""

    def __init__(self, client: AsyncClient, job_id: str) -> None:
        self.client = client
        self.job_id = job_id
        self.state: JobState | None = None

    def __repr__(self) -> str:
        status = self.state.status if self.state else "?"
        return f"<AsyncJob {self.job_id} {status}>"

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
        failures = 0
        while failures < SSE_MAX_FAILURES and not tracker.state.finished:
            tracker.check_deadline()
            delivered = False
            try:
                async with aconnect_sse(
                    self.client._http,
                    "GET",
                    protocol.job_path(self.job_id, "/events"),
                    headers={"Last-Event-ID": str(tracker.state.seq)},
                    timeout=httpx.Timeout(10.0, read=tracker.sse_read_timeout()),
                ) as source:
                    if source.response.status_code != 200:
                        return
                    async for event in source.aiter_sse():
                        if event.data:
                            tracker.accept(JobState.from_json(event.json()))
                            delivered = True
                            if tracker.state.finished:
                                return
            except SSEError:
                return
            except httpx.ReadTimeout:
                tracker.check_deadline()
                return
            except httpx.TransportError:
                pass
            failures = 0 if delivered else failures + 1

    async def download(
        self, dest: str | os.PathLike[str], *, on_bytes: OnBytes | None = None
    ) -> Path:
        """Write the PDF to `dest`; see `pdfreports.Job.download`."""
        state = await self.refresh()
        if state.finished and not state.succeeded:
            raise JobFailed(state)
        if not state.pdf_url:
            raise PdfReportsError(f"job {self.job_id} is {state.status}: no PDF yet")
        response = await self.client._send(
            "GET", state.pdf_url, idempotent=True, http=self.client._links, stream=True
        )
        try:
            target = protocol.download_target(Path(dest), response, self.job_id)
            partial = target.with_name(target.name + ".part")
            total = protocol.content_length(response)
            received = 0
            with partial.open("wb") as out:
                async for chunk in response.aiter_bytes():
                    out.write(chunk)
                    received += len(chunk)
                    if on_bytes:
                        on_bytes(received, total)
        finally:
            await response.aclose()
        os.replace(partial, target)
        return target
