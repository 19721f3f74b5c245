"""The template a submit by slug uses, cached in the process and dropped by a generation
number in Redis that every committed save or delete of a template or version moves on.

A submit by slug spent ~10 M instructions (a quarter of it) compiling the one query of
`template_latest_version_visible`; a hit costs one Redis GET. An entry is stored under the
generation read before its query, so a change committed meanwhile makes it a miss. A
process that has written a template and not committed yet reads past the cache until its
commit moves the generation on (after a rollback, for good: safe, only slower). Without
Redis nothing is cached."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from core.redis import redis_client
from reports import selectors
from reports.models import ReportTemplateVersion

_KEY = "reports:template-generation"
_MAX_ENTRIES = 1024
_entries: dict[tuple[Any, str], tuple[bytes, ReportTemplateVersion]] = {}
# Writes of this process not committed yet: what the cache holds may not be what it sees.
_uncommitted = {"writes": 0}


def _generation() -> bytes | None:
    try:
        value: Any = redis_client().get(_KEY)
        return bytes(value or b"0")
    except Exception:  # Redis down: no cache, the query answers
        return None


def template_latest_version_cached(*, workspace: Any, slug: str) -> ReportTemplateVersion | None:
    """`selectors.template_latest_version_visible`, from the cache while no template or
    version has changed. Callers read the answer, never change it (it is shared)."""
    generation = None if _uncommitted["writes"] else _generation()
    key = (getattr(workspace, "pk", workspace), slug)
    if generation is not None:
        hit = _entries.get(key)
        if hit is not None and hit[0] == generation:
            return hit[1]
    version = selectors.template_latest_version_visible(workspace=workspace, slug=slug)
    if generation is not None and version is not None:
        if len(_entries) >= _MAX_ENTRIES:
            _entries.clear()
        _entries[key] = (generation, version)
    return version


def template_cache_invalidate(**_signal: Any) -> None:
    """A template or version was saved or deleted: every process's entries are stale."""
    _entries.clear()
    _uncommitted["writes"] += 1
    transaction.on_commit(_committed)


def _committed() -> None:
    try:
        redis_client().incr(_KEY)
    except Exception:  # noqa: S110 - nothing is cached without Redis either
        pass
    _entries.clear()
    _uncommitted["writes"] -= 1
