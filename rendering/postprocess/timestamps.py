"""RFC 3161 timestamps for the sign step: pyHanko's timestamp requests, sent only to the
address the caller checked (jobs.steps resolves the URL under our outbound rules),
redirects refused, the reply read up to a cap (declared or chunked), and each failure
sorted into "try again later" or "fix the URL"."""

from __future__ import annotations

import socket
from typing import Any

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from asn1crypto import tsp  # type: ignore[import-untyped]  # no stubs
from pyhanko.sign.timestamps import TimeStamper, TimestampRequestError
from yarl import URL

from rendering.error_codes import ErrorCode
from rendering.errors import RenderError

TIMEOUT_SECONDS = 10
# A timestamp reply is a few kilobytes; a larger declared body is not read, and a body
# without a length (chunked) is read only up to this many bytes.
MAX_REPLY_BYTES = 256 * 1024
READ_BYTES = 64 * 1024
REPLY_TYPE = "application/timestamp-reply"


class TimestampUnavailable(Exception):
    """The timestamp authority could not be reached, timed out or answered 5xx/429: not
    a RenderError, so the job is retried like any transient failure."""


class _Refused(aiohttp.ClientError):
    """An answer we stop reading (a redirect, an oversized body): permanent."""


def timestamp_failed(url: str, reason: str) -> RenderError:
    return RenderError(f"sign.timestamp_url {url}: {reason}", code=ErrorCode.TIMESTAMP_FAILED)


class _PinnedResolver(AbstractResolver):
    """Every lookup of the URL's host answers the checked address; no other host is
    looked up (a second lookup could be rebound to an internal address)."""

    def __init__(self, host: str, address: str) -> None:
        self.host, self.address = host, address

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        if host != self.host:
            raise OSError(f"{host!r} is not the checked timestamp host")
        kind = socket.AF_INET6 if ":" in self.address else socket.AF_INET
        return [
            ResolveResult(
                hostname=host, host=self.address, port=port, family=kind, proto=0, flags=0
            )
        ]

    async def close(self) -> None:
        return None


async def _refuse_redirect(*_: Any) -> None:
    raise _Refused("the server answered with a redirect (not followed).")


async def _refuse_oversized(_: Any, __: Any, params: aiohttp.TraceRequestEndParams) -> None:
    # Runs once the headers are in, before the body is read.
    length = params.response.content_length
    if length is not None and length > MAX_REPLY_BYTES:
        raise _Refused(f"the answer is {length} bytes; a timestamp reply is a few KB.")


async def _read_capped(response: aiohttp.ClientResponse) -> bytes:
    """The body, a piece at a time, stopping as soon as it passes MAX_REPLY_BYTES: a
    chunked reply declares no length, so the header check cannot refuse it."""
    body = bytearray()
    while piece := await response.content.read(READ_BYTES):
        body += piece
        if len(body) > MAX_REPLY_BYTES:
            raise _Refused(
                f"the answer is longer than {MAX_REPLY_BYTES} bytes; a timestamp reply is a few KB."
            )
    return bytes(body)


async def _exchange(
    session: aiohttp.ClientSession, url: str, req: Any, timeout: float
) -> Any:  # asn1crypto tsp.TimeStampResp (untyped)
    """pyHanko's HTTPTimeStamper exchange (POST the query, expect a timestamp-reply), but
    reading the reply with a cap. aiohttp errors become TimestampRequestError with the
    cause kept, as pyHanko raises them."""
    try:
        async with session.post(
            url,
            headers={"Content-Type": "application/timestamp-query"},
            data=req.dump(),
            raise_for_status=True,
            timeout=aiohttp.ClientTimeout(total=timeout),
        ) as response:
            if response.headers.get("Content-Type") != REPLY_TYPE:
                raise aiohttp.ContentTypeError(
                    response.request_info,
                    response.history,
                    message=f"expected {REPLY_TYPE}",
                    headers=response.headers,
                )
            body = await _read_capped(response)
    except (aiohttp.ClientError, OSError) as exc:
        raise TimestampRequestError("Error while contacting timestamp service") from exc
    return tsp.TimeStampResp.load(body)


def _sorted_out(url: str, exc: TimestampRequestError) -> Exception:
    """The error a failed exchange stands for: transient or permanent."""
    cause = exc.__cause__
    if isinstance(cause, _Refused):
        return timestamp_failed(url, str(cause))
    if isinstance(cause, aiohttp.ContentTypeError):
        return timestamp_failed(url, "the server did not answer with application/timestamp-reply.")
    if isinstance(cause, aiohttp.ClientResponseError):
        if cause.status >= 500 or cause.status == 429:
            return TimestampUnavailable(f"the timestamp authority answered HTTP {cause.status}")
        return timestamp_failed(url, f"the server answered HTTP {cause.status}.")
    if isinstance(cause, aiohttp.ClientError | OSError):  # refused, reset, timed out
        return TimestampUnavailable(
            f"the timestamp authority is unreachable ({type(cause).__name__}: {cause})"
        )
    return timestamp_failed(url, f"{exc}.")


class CheckedTimeStamper(TimeStamper):
    """A pyHanko TimeStamper over a session that connects only to `address`; keeps
    the certificates of the last token, the TSA's, to validate it back with."""

    def __init__(self, url: str, *, address: str, timeout: float = TIMEOUT_SECONDS) -> None:
        # On the class, not through super(): only this form of the call to pyHanko's untyped
        # __init__ falls under mypy's untyped_calls_exclude (pyproject.toml).
        TimeStamper.__init__(self)
        self.url, self.address, self.timeout = url, address, timeout
        self.certificates: list[Any] = []  # asn1crypto x509.Certificate (untyped)

    async def async_request_tsa_response(self, req: Any) -> Any:  # asn1crypto tsp values
        trace = aiohttp.TraceConfig()
        trace.on_request_redirect.append(_refuse_redirect)
        trace.on_request_end.append(_refuse_oversized)
        # The host as aiohttp will look it up (lower case, an IDN in its ASCII form).
        host = URL(self.url).raw_host or ""
        connector = aiohttp.TCPConnector(resolver=_PinnedResolver(host, self.address))
        async with aiohttp.ClientSession(
            connector=connector, trust_env=False, trace_configs=[trace]
        ) as session:
            try:
                response = await _exchange(session, self.url, req, self.timeout)
                # Parsed in full now (asn1crypto parses lazily): garbage fails here.
                response.native  # noqa: B018
                token = response["time_stamp_token"]
            except TimestampRequestError as exc:
                raise _sorted_out(self.url, exc) from None
            except (ValueError, TypeError, KeyError) as exc:
                reason = " ".join(str(exc).split())
                raise timestamp_failed(
                    self.url, f"the answer is not an RFC 3161 timestamp reply ({reason})."
                ) from None
        if token.native is not None:  # a refusal carries no token; pyHanko reports it
            self.certificates = [c.chosen for c in token["content"]["certificates"]]
        return response


def timestamp_request_failed(url: str, exc: TimestampRequestError) -> RenderError:
    """A reply the TSA sent that refuses the request or does not match it (nonce)."""
    return timestamp_failed(url, f"{exc}.")
