"""A per-process cache of database reads that a generation number in Redis invalidates:
every committed save or delete of the models it reads moves the number on, so a hit costs
one Redis GET instead of a compiled query.

An entry is stored under the generation read before its query, so a change committed
meanwhile makes it a miss. A thread whose transaction wrote what the cache reads reads
past the cache until that transaction ends (its commit moves the generation on; after a
rollback nothing changed). Without Redis nothing is cached.

Inside a request (`request_scope`, entered by core.sync_chain) the first look-up reads
the generations of every cache in one MGET and the request's later look-ups use them: a
submit reads three caches, and one round trip costs less than three. A change committed
after that MGET is seen by the next request, as if this one had come a moment earlier;
a change this request commits makes its own later look-ups load again."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from django.db import connection, transaction

from core.redis import redis_client

T = TypeVar("T")

# Every cache's generation key, for the request's one MGET.
_KEYS: list[str] = []
# Per thread, inside request_scope: the generations read for this request ({} until the
# first look-up), else no attribute.
_request = threading.local()


@contextmanager
def request_scope() -> Iterator[None]:
    """The look-ups inside share one read of the generations (see the module's text)."""
    outer = getattr(_request, "generations", None)
    _request.generations = {}
    try:
        yield
    finally:
        if outer is None:
            del _request.generations
        else:  # a request handled inside another (a test client in a view)
            _request.generations = outer


def _request_generation(key: str) -> bytes | None:
    """The generation of `key` as this request read it, reading all of them the first time;
    None outside a request, or when Redis did not answer (then nothing is cached)."""
    generations: dict[str, bytes | None] | None = getattr(_request, "generations", None)
    if generations is None:
        return _read_one(key)
    if key not in generations:
        try:
            values: list[Any] = list(redis_client().mget(_KEYS))
        except Exception:  # Redis down: no cache, the query answers
            return None
        generations.update(
            (name, bytes(value or b"0")) for name, value in zip(_KEYS, values, strict=True)
        )
    return generations.get(key)


def _read_one(key: str) -> bytes | None:
    try:
        value: Any = redis_client().get(key)
    except Exception:  # Redis down: no cache, the query answers
        return None
    return bytes(value or b"0")


class GenerationCache(Generic[T]):
    def __init__(self, name: str, *, max_entries: int = 1024) -> None:
        self._key = f"cache-generation:{name}"
        if self._key not in _KEYS:
            _KEYS.append(self._key)
        self._max = max_entries
        self._entries: dict[Hashable, tuple[bytes, T]] = {}
        # Per thread: the outermost atomic block of a transaction that wrote and has not
        # ended yet.
        self._writing = threading.local()

    def _in_own_write(self) -> bool:
        block = getattr(self._writing, "block", None)
        return (
            block is not None
            and connection.in_atomic_block
            and bool(connection.atomic_blocks)
            and connection.atomic_blocks[0] is block
        )

    def _generation(self) -> bytes | None:
        if self._in_own_write():
            return None
        return _request_generation(self._key)

    def get(self, key: Hashable, load: Callable[[], T | None]) -> T | None:
        """The entry for `key` while nothing changed, else `load()` (a None is not kept)."""
        generation = self._generation()
        if generation is not None:
            hit = self._entries.get(key)
            if hit is not None and hit[0] == generation:
                return hit[1]
        value = load()
        if generation is not None and value is not None:
            if len(self._entries) >= self._max:
                self._entries.clear()
            self._entries[key] = (generation, value)
        return value

    def invalidate(self, **_signal: Any) -> None:
        """What it read changed (a signal receiver): stale in every process once committed."""
        self._entries.clear()
        if connection.in_atomic_block and connection.atomic_blocks:
            self._writing.block = connection.atomic_blocks[0]
        transaction.on_commit(self._committed)

    def _committed(self) -> None:
        try:
            redis_client().incr(self._key)
        except Exception:  # noqa: S110 - nothing is cached without Redis either
            pass
        self._entries.clear()
        self._writing.block = None
        generations = getattr(_request, "generations", None)
        if generations:
            # This request's later look-ups read the generations again, past its change.
            generations.clear()
