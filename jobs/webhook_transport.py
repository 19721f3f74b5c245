"""One POST to a tenant's callback URL that cannot be turned against our own network.

The host is resolved once; every address it resolves to is checked, and the connection
goes to the checked address (the URL's host travels in the Host header and TLS SNI, so
certificates are still verified against the name). A second lookup at connect time
would let DNS rebinding swap in an internal address between check and connect. Proxy
variables are ignored (a proxy would do its own lookup). NAT64, 6to4, Teredo and
IPv4-compatible IPv6 addresses are judged by the IPv4 address they carry. The response
is read to at most `max_bytes` and the whole exchange has one deadline, so a receiver
that drips a byte every few seconds cannot hold a worker.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import httpx

from core.outbound import address_allowed

__all__ = ["WebhookRefused", "address_allowed", "resolve_checked", "webhook_post"]


class WebhookRefused(Exception):
    """The URL may not be called (scheme, resolution, address); not worth a retry."""


@dataclass(frozen=True)
class WebhookResponse:
    status_code: int
    body: bytes
    # The answer's headers, names in lower case (a download's Content-Disposition).
    headers: dict[str, str] = field(default_factory=dict)


def resolve_checked(host: str, port: int, *, allow_private: bool) -> str:
    """The address to connect to: the first one `host` resolves to, once every one of
    them has been checked (a name with one internal address among public ones is
    refused: the resolver could hand out either)."""
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except OSError:
        raise WebhookRefused(f"callback host {host!r} does not resolve.") from None
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    if not addresses:
        raise WebhookRefused(f"callback host {host!r} does not resolve.")
    if not allow_private and not all(address_allowed(a) for a in addresses):
        raise WebhookRefused(f"callback host {host!r} is not a public address.")
    return str(addresses[0])


async def _send(
    url: str,
    *,
    method: str = "POST",
    content: bytes | None,
    headers: dict[str, str],
    max_bytes: int,
    allow_private: bool,
    connect_seconds: float,
) -> WebhookResponse:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise WebhookRefused("callback_url must be an http(s) URL with a host.")
    host = parts.hostname
    port = parts.port or (443 if scheme == "https" else 80)
    address = await asyncio.to_thread(resolve_checked, host, port, allow_private=allow_private)
    literal = f"[{address}]" if ":" in address else address
    target = urlunsplit((scheme, f"{literal}:{port}", parts.path or "/", parts.query, ""))
    host_header = parts.netloc.rsplit("@", 1)[-1]
    # A receiver that does not even accept the connection is given up on quickly.
    timeout = httpx.Timeout(None, connect=connect_seconds)
    async with (
        httpx.AsyncClient(trust_env=False, follow_redirects=False, timeout=timeout) as client,
        client.stream(
            method,
            target,
            content=content,
            headers={**headers, "Host": host_header},
            extensions={"sni_hostname": host},
        ) as response,
    ):
        body = b""
        async for chunk in response.aiter_raw():
            body += chunk[: max_bytes - len(body)]
            if len(body) >= max_bytes:
                break  # enough to know the answer; the rest is not read
        headers = {name.lower(): value for name, value in response.headers.items()}
        return WebhookResponse(status_code=response.status_code, body=body, headers=headers)


def webhook_post(
    url: str,
    *,
    content: bytes,
    headers: dict[str, str],
    deadline_seconds: float,
    max_bytes: int = 64 * 1024,
    allow_private: bool = False,
    connect_seconds: float = 2.0,
    method: str = "POST",
) -> WebhookResponse:
    """POST (or `method`) `content` to `url`; raise WebhookRefused for a URL that may not
    be called, TimeoutError past the deadline, httpx.HTTPError for a failed exchange."""

    async def bounded() -> WebhookResponse:
        async with asyncio.timeout(deadline_seconds):
            return await _send(
                url,
                method=method,
                content=content,
                headers=headers,
                max_bytes=max_bytes,
                allow_private=allow_private,
                connect_seconds=min(connect_seconds, deadline_seconds),
            )

    return asyncio.run(bounded())


def outbound_get(
    url: str,
    *,
    deadline_seconds: float,
    max_bytes: int,
    allow_private: bool = False,
    connect_seconds: float = 2.0,
    accept: str = "application/json",
    extra_headers: Mapping[str, str] | None = None,
) -> WebhookResponse:
    """GET `url` under the same rules as a webhook (checked address, no proxies, one
    deadline); the body is read to at most `max_bytes + 1`, so a caller can tell a body
    past its cap from one at it (schedules' data URLs, the Gotenberg adapter's /url
    route and downloadFrom, which sends the caller's `extra_headers`). Raises like
    webhook_post."""

    async def bounded() -> WebhookResponse:
        async with asyncio.timeout(deadline_seconds):
            return await _send(
                url,
                method="GET",
                content=None,
                headers={
                    **(extra_headers or {}),
                    "Accept": accept,
                    "User-Agent": "pdf-report-service/1",
                },
                max_bytes=max_bytes + 1,
                allow_private=allow_private,
                connect_seconds=min(connect_seconds, deadline_seconds),
            )

    return asyncio.run(bounded())
