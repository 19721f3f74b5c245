"""What the synchronous and the asyncio client share: their setup, and the retry decision
after each attempt (the sending and the waiting are theirs: blocking or awaited)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import httpx

from pdfreports import protocol
from pdfreports.calls import Call
from pdfreports.errors import JobFailed, PdfReportsError, ServiceUnavailable
from pdfreports.models import JobState
from pdfreports.retry import RetryEvent, RetryPolicy

OnRetry = Callable[[RetryEvent], None]
Http = TypeVar("Http", httpx.Client, httpx.AsyncClient)
ClientT = TypeVar("ClientT")


class _BaseClient(Generic[Http]):
    """A connection to the service, authenticated by API key: `_http` for the API,
    `_links` for signed download links."""

    _http_class: type[Http]

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        on_retry: OnRetry | None = None,
        transport: Any = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self.on_retry = on_retry
        self._http: Http = self._http_class(
            base_url=self.base_url,
            headers={protocol.API_KEY_HEADER: api_key, "User-Agent": protocol.USER_AGENT},
            timeout=timeout,
            transport=transport,
        )
        # Signed download links are their own credential: the API key is not sent with them.
        # On S3 the service answers a link with a redirect to a presigned URL of the PDF.
        self._links: Http = self._http_class(
            headers={"User-Agent": protocol.USER_AGENT},
            timeout=timeout,
            transport=transport,
            follow_redirects=True,
        )

    def _wait_after_error(
        self, call: Call[Any], request: httpx.Request, attempt: int, exc: Exception
    ) -> float:
        """Seconds to wait before trying again after a broken connection (announced to
        `on_retry`); ServiceUnavailable once the policy gives up."""
        delay = self.retry.delay(attempt=attempt, response=None, idempotent=call.idempotent)
        if delay is None:
            raise ServiceUnavailable(f"{call.method} {request.url}: {exc!r}") from exc
        self._announce(call, request, attempt, delay, type(exc).__name__)
        return delay

    def _wait_after_answer(
        self, call: Call[Any], request: httpx.Request, attempt: int, response: httpx.Response
    ) -> float | None:
        """Seconds to wait before trying again after this answer (announced to
        `on_retry`), or None: the answer stands."""
        delay = self.retry.delay(attempt=attempt, response=response, idempotent=call.idempotent)
        if delay is not None:
            reason = f"{response.status_code} {response.reason_phrase}"
            self._announce(call, request, attempt, delay, reason)
        return delay

    def _announce(
        self, call: Call[Any], request: httpx.Request, attempt: int, delay: float, reason: str
    ) -> None:
        if self.on_retry:
            self.on_retry(RetryEvent(call.method, str(request.url), attempt + 1, delay, reason))


class _BaseJob(Generic[ClientT]):
    """A submitted job of either client: `state` is the last state seen."""

    def __init__(self, client: ClientT, job_id: str) -> None:
        self.client = client
        self.job_id = job_id
        self.state: JobState | None = None

    def __repr__(self) -> str:
        status = self.state.status if self.state else "?"
        return f"<{type(self).__name__} {self.job_id} {status}>"

    def _pdf_call(self, state: JobState) -> Call[httpx.Response]:
        """The download of the job's PDF (a signed link, sent without the API key); JobFailed
        if the job failed, PdfReportsError while it has no PDF yet."""
        if state.finished and not state.succeeded:
            raise JobFailed(state)
        if not state.pdf_url:
            raise PdfReportsError(f"job {self.job_id} is {state.status}: no PDF yet")
        return link_call(state.pdf_url)


def link_call(url: str) -> Call[httpx.Response]:
    """A GET of a signed download link, whose answer is read as a stream."""
    return Call("GET", url, lambda response: response)
