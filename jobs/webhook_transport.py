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
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


class WebhookRefused(Exception):
    """The URL may not be called (scheme, resolution, address); not worth a retry."""


@dataclass(frozen=True)
class WebhookResponse:
    status_code: int
    body: bytes


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, NAT64, 6to4, Teredo,
    IPv4-compatible), or None."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.teredo is not None:
        return address.teredo[1]
    if address in _SIX_TO_FOUR:
        return address.sixtofour
    if any(address in network for network in _NAT64) or (
        address in _IPV4_COMPATIBLE and int(address) > 1
    ):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_allowed(address: IPAddress) -> bool:
    """A public unicast address, also for the IPv4 address an IPv6 one carries."""
    inner = embedded_ipv4(address)
    if inner is not None and not inner.is_global:
        return False
    return address.is_global and not address.is_multicast


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


async def _post(
    url: str,
    *,
    method: str = "POST",
    content: bytes,
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
        return WebhookResponse(status_code=response.status_code, body=body)


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
            return await _post(
                url,
                method=method,
                content=content,
                headers=headers,
                max_bytes=max_bytes,
                allow_private=allow_private,
                connect_seconds=min(connect_seconds, deadline_seconds),
            )

    return asyncio.run(bounded())


def url_get(
    url: str,
    *,
    deadline_seconds: float,
    max_bytes: int,
    allow_private: bool = False,
    connect_seconds: float = 2.0,
) -> WebhookResponse:
    """GET `url` under the same rules as a webhook (checked address, no proxies, one
    deadline, at most `max_bytes` read): the Gotenberg adapter's /url route."""

    async def bounded() -> WebhookResponse:
        async with asyncio.timeout(deadline_seconds):
            return await _post(
                url,
                method="GET",
                content=b"",
                headers={"User-Agent": "pdf-report-service/1", "Accept": "text/html"},
                max_bytes=max_bytes + 1,  # one more than allowed tells "too large" apart
                allow_private=allow_private,
                connect_seconds=min(connect_seconds, deadline_seconds),
            )

    return asyncio.run(bounded())
