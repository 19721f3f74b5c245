"""Which addresses an outbound request (a webhook, a timestamp authority) may reach: public
unicast only, judging an IPv6 address that carries an IPv4 one by the IPv4 address."""

from __future__ import annotations

import ipaddress

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


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


def host_literal_allowed(host: str) -> bool:
    """What a URL's host says by itself, before any lookup: a public address literal, or a
    name that is not `localhost` (a name is resolved and checked just before connecting,
    so a web request never waits on a tenant's DNS nor learns which internal names exist)."""
    host = host.rstrip(".").lower()
    try:
        literal = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return not (host == "localhost" or host.endswith(".localhost"))
    return address_allowed(literal)
