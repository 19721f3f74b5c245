"""Which tenant a person acts for: the one answer every per-tenant limit is keyed by.

Today a tenant is a user; once workspaces land it is the workspace the request acts in,
and only this function changes: rate limits, key caps, stream slots, preview and callback
budgets all ask here.
"""

from __future__ import annotations

from typing import Any


def tenant_id_for(*, user: Any) -> int:
    """The tenant id `user` acts for (the key of every per-tenant counter)."""
    return int(user.pk)
