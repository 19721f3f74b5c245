"""Ids from URLs and request bodies: a malformed one finds nothing, so the caller answers
it as it answers a missing row (a 404 that tells no one which ids exist)."""

from __future__ import annotations

import uuid


def uuid_or_none(value: str | uuid.UUID) -> uuid.UUID | None:
    """`value` as a UUID, or None when it is not one."""
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None
